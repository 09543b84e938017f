package main

import (
	"context"
	"testing"
)

func TestResolveLoopback(t *testing.T) {
	tests := []struct {
		target  string
		want    string // "" means refused
		comment string
	}{
		{"127.0.0.1:6379", "127.0.0.1:6379", "IPv4 loopback"},
		{"127.1.2.3:6380", "127.1.2.3:6380", "all of 127/8 is loopback"},
		{"[::1]:6379", "[::1]:6379", "IPv6 loopback"},
		{"[::ffff:127.0.0.1]:6379", "127.0.0.1:6379", "v4-mapped loopback"},
		{"localhost:6379", "", "resolved through the hosts file; checked below"},
		{"10.0.0.1:6379", "", "private but not loopback"},
		{"0.0.0.0:6379", "", "unspecified is not loopback"},
		{"[::]:6379", "", "unspecified v6"},
		{"8.8.8.8:53", "", "public"},
		{"127.0.0.1", "", "no port"},
		{":6379", "", "empty host"},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			got, err := resolveLoopback(context.Background(), tc.target)
			if tc.target == "localhost:6379" {
				// Whatever localhost maps to here, it must be loopback or refused.
				if err == nil && got != "127.0.0.1:6379" && got != "[::1]:6379" {
					t.Fatalf("localhost resolved to %q", got)
				}
				return
			}
			if tc.want == "" {
				if err == nil {
					t.Fatalf("%s (%s): accepted as %q, want refusal", tc.target, tc.comment, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%s (%s): got %q, %v; want %q", tc.target, tc.comment, got, err, tc.want)
			}
		})
	}
}
