//go:build !race

package main

// buildFlags build the server the way this test binary was built, so that
// the packages it shares with the other tests come from the build cache.
var buildFlags []string
