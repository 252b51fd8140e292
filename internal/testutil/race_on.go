//go:build race

package testutil

// RaceEnabled tells that the tests run under the race detector: the tests
// that stream hundreds of MB or write GBs take many minutes under it, and
// its shadow of freed memory stays resident (a child's peak RSS starts
// there). Such tests skip themselves then; `make test` runs them again
// without it.
const RaceEnabled = true
