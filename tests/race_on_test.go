//go:build race

package tests

// raceEnabled: the test binary runs under -race, so geoshard is built with
// -race too and the end-to-end tests double as a race check of the server.
const raceEnabled = true
