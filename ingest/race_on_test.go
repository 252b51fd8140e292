//go:build race

package ingest

// raceEnabled tells that the tests run under the race detector, which makes
// the tests that stream hundreds of MB take many minutes; `make test` runs
// them again without it.
const raceEnabled = true
