//go:build race

package router

// raceEnabled: the race detector makes sync.Pool drop a quarter of what
// is put in it at random, so tests of pooling allow for that.
const raceEnabled = true
