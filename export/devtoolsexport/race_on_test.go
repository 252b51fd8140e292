//go:build race

package devtoolsexport_test

// raceEnabled tells that the tests run under the race detector.
const raceEnabled = true
