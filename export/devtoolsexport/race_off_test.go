//go:build !race

package devtoolsexport_test

const raceEnabled = false
