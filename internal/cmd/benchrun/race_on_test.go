//go:build race

package main

// raceEnabled tells that the tests run under the race detector, whose
// shadow of freed memory stays resident: a child's peak, which starts at
// this process's resident memory, cannot be told from its own then. `make
// test` runs TestMeasurePeakNotInherited again without it.
const raceEnabled = true
