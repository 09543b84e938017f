package main

import (
	"fmt"
	"net"
	"strconv"
)

// loopbackAddr checks that addr (host:port) names this machine: an IP
// literal in 127.0.0.0/8 or ::1, or "localhost". The simulator floods its
// target, so it refuses anything else.
func loopbackAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("address %q: %w", addr, err)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return "", fmt.Errorf("address %q: bad port", addr)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", fmt.Errorf("address %q: only loopback targets (127.0.0.0/8, ::1, localhost) are allowed", addr)
	}
	return net.JoinHostPort(ip.String(), port), nil
}
