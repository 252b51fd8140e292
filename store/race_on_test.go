//go:build race

package store

// raceEnabled tells that the tests run under the race detector, under which
// the tests that write GBs take many minutes; `make test` runs them again
// without it.
const raceEnabled = true
