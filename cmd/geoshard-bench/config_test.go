package main

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(t *testing.T, cfg config)
		wantErr string
	}{
		{name: "defaults", args: nil, check: func(t *testing.T, cfg config) {
			if cfg.drivers != 1_000_000 || cfg.conns != 50 || cfg.duration != 10*time.Second || cfg.key != "drivers" {
				t.Errorf("defaults: %+v", cfg)
			}
			if len(cfg.phases) != 5 || !slices.Equal(cfg.targets, []string{"127.0.0.1:6379"}) {
				t.Errorf("phases %v targets %v", cfg.phases, cfg.targets)
			}
		}},
		{name: "quick", args: []string{"-quick"}, check: func(t *testing.T, cfg config) {
			if cfg.drivers != 20_000 || cfg.duration != time.Second {
				t.Errorf("quick gave n=%d duration=%v", cfg.drivers, cfg.duration)
			}
		}},
		{name: "explicit beats quick", args: []string{"-n", "5000", "-quick", "-duration", "2s"}, check: func(t *testing.T, cfg config) {
			if cfg.drivers != 5000 || cfg.duration != 2*time.Second {
				t.Errorf("got n=%d duration=%v", cfg.drivers, cfg.duration)
			}
		}},
		{name: "two targets", args: []string{"-target", "127.0.0.1:1", "-target", "127.0.0.1:2"}, check: func(t *testing.T, cfg config) {
			if !slices.Equal(cfg.targets, []string{"127.0.0.1:1", "127.0.0.1:2"}) {
				t.Errorf("targets %v", cfg.targets)
			}
		}},
		{name: "a and b", args: []string{"-b", "127.0.0.1:2", "-a", "127.0.0.1:1"}, check: func(t *testing.T, cfg config) {
			if !slices.Equal(cfg.targets, []string{"127.0.0.1:1", "127.0.0.1:2"}) {
				t.Errorf("targets %v", cfg.targets)
			}
		}},
		{name: "radius per phase", args: []string{"-mode", "load, knn, knn:5,wide:10,mix", "-radius", "3"}, check: func(t *testing.T, cfg config) {
			var got []float64
			for _, p := range cfg.phases {
				got = append(got, p.radiusKm)
			}
			if want := []float64{0, 3, 5, 10, 3}; !slices.Equal(got, want) {
				t.Errorf("radii %v, want %v", got, want)
			}
		}},
		{name: "idle phases", args: []string{"-mode", "load,wide,idle,idle:2.5"}, check: func(t *testing.T, cfg config) {
			var got []time.Duration
			for _, p := range cfg.phases {
				got = append(got, p.idle)
			}
			if want := []time.Duration{0, 0, defaultIdle, 2500 * time.Millisecond}; !slices.Equal(got, want) {
				t.Errorf("idle times %v, want %v", got, want)
			}
		}},
		{name: "bad idle", args: []string{"-mode", "idle:x"}, wantErr: "seconds"},
		{name: "negative idle", args: []string{"-mode", "idle:-1"}, wantErr: "seconds"},
		{name: "unknown phase", args: []string{"-mode", "load,scan"}, wantErr: "unknown phase"},
		{name: "radius on update", args: []string{"-mode", "update:5"}, wantErr: "takes no radius"},
		{name: "bad radius", args: []string{"-mode", "knn:-1"}, wantErr: "positive"},
		{name: "three targets", args: []string{"-target", "127.0.0.1:1", "-target", "127.0.0.1:2", "-target", "127.0.0.1:3"}, wantErr: "at most two"},
		{name: "unbounded", args: []string{"-duration", "0"}, wantErr: "bounded"},
		{name: "fewer drivers than connections", args: []string{"-n", "10", "-c", "20"}, wantErr: "one driver per connection"},
		{name: "stray argument", args: []string{"knn"}, wantErr: "unexpected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, cfg)
		})
	}
}
