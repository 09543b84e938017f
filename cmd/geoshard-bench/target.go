package main

import (
	"context"
	"fmt"
	"net"
	"net/netip"
)

// resolveLoopback turns host:port into ip:port, refusing anything that is
// not loopback: this tool may only ever send load to the local machine.
// Every address the name resolves to must be loopback, and the resolved
// address is what gets dialled, so a later lookup cannot redirect traffic.
func resolveLoopback(ctx context.Context, target string) (string, error) {
	host, port, err := net.SplitHostPort(target)
	if err != nil {
		return "", fmt.Errorf("target %q: want host:port: %w", target, err)
	}
	if host == "" {
		return "", fmt.Errorf("target %q: empty host; use 127.0.0.1", target)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return "", fmt.Errorf("target %q: resolving %s: %w", target, host, err)
		}
	}
	if len(addrs) == 0 {
		return "", fmt.Errorf("target %q: %s resolves to no address", target, host)
	}
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return "", fmt.Errorf("target %q: %s is not a loopback address (only 127.0.0.0/8 and ::1 are allowed)", target, a)
		}
	}
	return net.JoinHostPort(addrs[0].Unmap().WithZone("").String(), port), nil
}
