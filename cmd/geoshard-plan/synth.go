package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"geoshard/plan"
)

func runSynth(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("synth", stderr)
	out := fs.String("out", "", "directory for pings.csv and searches.csv")
	drivers := fs.Int("drivers", 300, "drivers")
	dur := fs.Duration("duration", 20*time.Minute, "simulated time")
	rate := fs.Float64("searches-per-sec", 2, "rider searches per second")
	seed := fs.Uint64("seed", 1, "random seed")
	if err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return errors.New("synth: --out dir")
	case *drivers < 1 || *drivers > 1_000_000:
		return errors.New("synth: --drivers out of range 1..1000000")
	case *dur < 4*time.Second || *dur > 48*time.Hour:
		return errors.New("synth: --duration out of range 4s..48h")
	case !(*rate >= 0 && *rate <= 10000):
		return errors.New("synth: --searches-per-sec out of range 0..10000")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	w := plan.DefaultMetro().Synthesize(plan.SynthConfig{
		Drivers: *drivers, Duration: dur.Seconds(), SearchesPerSec: *rate, Seed: *seed,
	})
	write := func(name string, fn func(io.Writer) error) error {
		path := filepath.Join(*out, name)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return f.Close()
	}
	if err := write("pings.csv", func(f io.Writer) error { return plan.WritePings(f, w.Pings) }); err != nil {
		return err
	}
	if err := write("searches.csv", func(f io.Writer) error { return plan.WriteSearches(f, w.Searches) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d pings and %d searches of the river-and-park metro to %s\n", len(w.Pings), len(w.Searches), *out)
	return nil
}
