//go:build !race

package shard

// raceEnabled: see race_on_test.go.
const raceEnabled = false
