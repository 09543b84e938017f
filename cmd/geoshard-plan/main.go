// Command geoshard-plan judges and proposes region maps offline; see
// the usage text below and docs/BORDERS.md.
//
// Workload files are CSV with a header line: pings "time,id,lon,lat" and
// searches "time,lon,lat,radius_m[,count]", time in seconds or RFC 3339.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "geoshard-plan:", err)
		}
		os.Exit(2)
	}
}

const usage = `usage:
  geoshard-plan report  --pings p.csv --searches s.csv --map a.geojson [--map b.geojson ...] [--svg-dir dir]
  geoshard-plan propose --pings p.csv --searches s.csv --shards N --out map.geojson
                        [--svg map.svg] [--png map.png] [--naive-out grid.geojson]
                        [--cell 250] [--margin 200] [--tolerance 0.5] [--shape rect|follow]
                        [--current map.geojson [--split SHARD]]
  geoshard-plan sweep   --pings p.csv --searches s.csv [--max-shards 8] [--cell 250] [--margin 200]
                        [--tolerance 0.5] [--shape rect|follow]
  geoshard-plan synth   --out dir [--drivers 300] [--duration 20m] [--searches-per-sec 2] [--seed 1]

Workload CSVs: pings "time,id,lon,lat", searches "time,lon,lat,radius_m" (COUNT 10)
or "time,lon,lat,radius_m,count" (0: no COUNT); time in seconds or RFC 3339.
propose compares its map with the equal grid of as many shards and says where it loses;
--current counts the drivers a switch would move; --split refines one shard of --current.
sweep does that for every shard count from 2 to --max-shards, one line each.
`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("no command")
	}
	switch args[0] {
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "propose":
		return runPropose(args[1:], stdout, stderr)
	case "synth":
		return runSynth(args[1:], stdout, stderr)
	case "sweep":
		return runSweep(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}

// listFlag collects a repeated flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("geoshard-plan "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
