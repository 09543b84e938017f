//go:build !race

package router

// raceEnabled: see race_on_test.go.
const raceEnabled = false
