//go:build !race

package testutil

// RaceEnabled tells that the tests run under the race detector (see
// race_on.go).
const RaceEnabled = false
