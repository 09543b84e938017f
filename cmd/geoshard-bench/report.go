package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// report is everything a run measured; printed as a table and optionally
// written as JSON for whoever fills docs/BENCHMARKS.md.
type report struct {
	Drivers    int           `json:"drivers"`
	Seed       uint64        `json:"seed"`
	Conns      int           `json:"connections"`
	Duration   string        `json:"duration_per_phase"`
	Requests   int           `json:"requests_per_phase,omitempty"`
	Rounds     int           `json:"rounds"`
	Key        string        `json:"key"`
	Background float64       `json:"background_share"`
	Targets    []string      `json:"targets"`
	Phases     []phaseReport `json:"phases"`
}

type phaseReport struct {
	Phase   string         `json:"phase"`
	Command string         `json:"command"`
	Results []targetResult `json:"results"`        // one per target, in target order
	Idle    bool           `json:"idle,omitempty"` // no requests: only its RSS counts
}

// targetResult is one target's figures for one phase. Negative values mean
// "not measured" (the server's INFO lacked the field).
type targetResult struct {
	Target           string  `json:"target"`
	Ops              uint64  `json:"ops"` // load: members loaded
	Errors           uint64  `json:"errors"`
	FirstError       string  `json:"first_error,omitempty"`
	Seconds          float64 `json:"seconds"`
	OpsPerSec        float64 `json:"ops_per_sec"`         // median of the rounds' rates
	OpsPerSecOverall float64 `json:"ops_per_sec_overall"` // total ops / total time
	MeanUs           float64 `json:"mean_us"`
	P50Us            float64 `json:"p50_us"`
	P99Us            float64 `json:"p99_us"`
	P999Us           float64 `json:"p999_us"`
	ResultsPerReply  float64 `json:"results_per_reply,omitempty"`
	ServerCPUUsPerOp float64 `json:"server_cpu_us_per_op"`
	ClientCPUUsPerOp float64 `json:"client_cpu_us_per_op"`
	Members          int64   `json:"members,omitempty"`
	UsedMemoryBefore int64   `json:"used_memory_before,omitempty"`
	UsedMemory       int64   `json:"used_memory,omitempty"`
	BytesPerDriver   float64 `json:"bytes_per_driver,omitempty"`
	RSS              int64   `json:"rss,omitempty"`            // used_memory_rss at the phase's end
	RSSPerDriver     float64 `json:"rss_per_driver,omitempty"` // its growth since before the load, per member
}

func newReport(cfg *config) *report {
	r := &report{
		Drivers: cfg.drivers, Seed: cfg.seed, Conns: cfg.conns, Duration: cfg.duration.String(),
		Requests: cfg.requests, Key: cfg.key, Background: cfg.background,
		Targets: cfg.targets,
	}
	r.Rounds = roundsFor(cfg, len(cfg.targets))
	return r
}

func (r *report) header() string {
	var bound []string
	if r.Duration != "0s" {
		bound = append(bound, r.Duration)
	}
	if r.Requests > 0 {
		bound = append(bound, fmt.Sprintf("%d requests", r.Requests))
	}
	s := fmt.Sprintf("geoshard-bench: %d drivers (seed %d, %.0f%% background), key %q, %d connections per target, %s per phase",
		r.Drivers, r.Seed, r.Background*100, r.Key, r.Conns, strings.Join(bound, " or "))
	if len(r.Targets) > 1 {
		s += fmt.Sprintf(", interleaved in %d rounds (A,B,B,A...); A=%s B=%s;"+
			" ops/s is the median of the rounds, latency and CPU cover all rounds", r.Rounds, r.Targets[0], r.Targets[1])
	}
	return s
}

func buildPhaseReport(cfg *config, ph phaseSpec, targets []*target, stats []*phaseStats) phaseReport {
	pr := phaseReport{Phase: ph.name, Command: commandText(cfg, ph)}
	for i, t := range targets {
		s := stats[i]
		res := targetResult{
			Target: t.label + " " + t.name, Ops: s.ops, Errors: s.errors, FirstError: s.firstErr,
			Seconds: s.elapsed.Seconds(), OpsPerSec: s.medianRate(), OpsPerSecOverall: rate(s.ops, s.elapsed),
			MeanUs: us(s.hist.mean()), P50Us: us(s.hist.quantile(0.50)),
			P99Us: us(s.hist.quantile(0.99)), P999Us: us(s.hist.quantile(0.999)),
			ServerCPUUsPerOp: -1,
		}
		if s.searches > 0 {
			res.ResultsPerReply = float64(s.results) / float64(s.searches)
		}
		if s.ops > 0 {
			if s.srvCPU >= 0 {
				res.ServerCPUUsPerOp = s.srvCPU * 1e6 / float64(s.ops)
			}
			res.ClientCPUUsPerOp = s.cliCPU * 1e6 / float64(s.ops)
		}
		pr.Results = append(pr.Results, res)
	}
	return pr
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// print writes the table: per phase one row per target and, with two
// targets, a B/A row. For ops/s a ratio above 1 favours B; for latency and
// CPU a ratio below 1 does.
func (r *report) print(w io.Writer) {
	fmt.Fprintln(w, r.header())
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\ttarget\tops/s\tp50\tp99\tp999\tsrv-cpu/op\tcli-cpu/op\tres/reply\terrors\t")
	for _, ph := range r.Phases {
		if ph.Idle {
			continue // nothing was sent: see the RSS table
		}
		for _, res := range ph.Results {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", ph.Phase, res.Target,
				fmtRate(res.OpsPerSec), fmtUs(res.P50Us), fmtUs(res.P99Us), fmtUs(res.P999Us),
				fmtUs(res.ServerCPUUsPerOp), fmtUs(res.ClientCPUUsPerOp), fmtResults(res.ResultsPerReply), res.Errors)
		}
		if len(ph.Results) == 2 {
			a, b := ph.Results[0], ph.Results[1]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\n", ph.Phase, "B/A",
				ratio(b.OpsPerSec, a.OpsPerSec), ratio(b.P50Us, a.P50Us), ratio(b.P99Us, a.P99Us),
				ratio(b.P999Us, a.P999Us), ratio(b.ServerCPUUsPerOp, a.ServerCPUUsPerOp),
				ratio(b.ClientCPUUsPerOp, a.ClientCPUUsPerOp), ratio(b.ResultsPerReply, a.ResultsPerReply))
		}
	}
	_ = tw.Flush()
	r.printMemory(w)
	r.printCommands(w)
	r.printErrors(w)
}

func (r *report) printMemory(w io.Writer) {
	for _, ph := range r.Phases {
		if len(ph.Results) == 0 || ph.Results[0].Members == 0 && ph.Results[0].UsedMemory == 0 {
			continue
		}
		fmt.Fprintf(w, "\nmemory after %s:\n", ph.Phase)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "target\tmembers\tused_memory\tbefore load\tbytes/driver\t")
		for _, res := range ph.Results {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", res.Target, res.Members,
				fmtBytes(res.UsedMemory), fmtBytes(res.UsedMemoryBefore), fmtNum(res.BytesPerDriver))
		}
		if len(ph.Results) == 2 {
			a, b := ph.Results[0], ph.Results[1]
			fmt.Fprintf(tw, "B/A\t\t%s\t\t%s\t\n", ratio(float64(b.UsedMemory), float64(a.UsedMemory)),
				ratio(b.BytesPerDriver, a.BytesPerDriver))
		}
		_ = tw.Flush()
		r.printRSS(w)
		return // one load per run is what the tool is for; show the first
	}
}

// printRSS shows RSS growth per driver at the end of every phase from the
// load on: the load's garbage and each phase's own stay in RSS until the
// runtime gives pages back.
func (r *report) printRSS(w io.Writer) {
	fmt.Fprintln(w, "\nRSS growth per driver since before the load, at the end of each phase:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "phase\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t", t)
	}
	if len(r.Targets) == 2 {
		fmt.Fprint(tw, "B/A\t")
	}
	fmt.Fprintln(tw)
	for _, ph := range r.Phases {
		if len(ph.Results) == 0 || ph.Results[0].RSSPerDriver == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t", ph.Phase)
		for _, res := range ph.Results {
			fmt.Fprintf(tw, "%s (%s)\t", fmtNum(res.RSSPerDriver), fmtBytes(res.RSS))
		}
		if len(ph.Results) == 2 {
			fmt.Fprintf(tw, "%s\t", ratio(ph.Results[1].RSSPerDriver, ph.Results[0].RSSPerDriver))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

func (r *report) printCommands(w io.Writer) {
	fmt.Fprintln(w, "\ncommands:")
	seen := map[string]bool{}
	for _, ph := range r.Phases {
		if !seen[ph.Phase] {
			seen[ph.Phase] = true
			fmt.Fprintf(w, "  %-8s %s\n", ph.Phase, ph.Command)
		}
	}
}

func (r *report) printErrors(w io.Writer) {
	header := false
	for _, ph := range r.Phases {
		for _, res := range ph.Results {
			if res.FirstError != "" {
				if !header {
					fmt.Fprintln(w, "\nerrors:")
					header = true
				}
				fmt.Fprintf(w, "  %s %s: %d errors, first: %s\n", ph.Phase, res.Target, res.Errors, res.FirstError)
			}
		}
	}
}

func (r *report) writeJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding report: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// fmtUs prints a duration given in microseconds with three significant
// digits; negative means not measured.
func fmtUs(v float64) string {
	switch {
	case v < 0:
		return "n/a"
	case v < 1000:
		return sig3(v) + "us"
	case v < 1e6:
		return sig3(v/1e3) + "ms"
	default:
		return sig3(v/1e6) + "s"
	}
}

func fmtRate(v float64) string {
	if v >= 1e4 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return sig3(v)
}

func fmtResults(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmtRate(v)
}

func fmtNum(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return sig3(v)
}

func fmtBytes(v int64) string {
	if v < 0 {
		return "n/a"
	}
	return strconv.FormatInt(v, 10)
}

func sig3(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// ratio is b/a as "1.23x", or "-" when either side was not measured.
func ratio(b, a float64) string {
	if a <= 0 || b < 0 {
		return "-"
	}
	return sig3(b/a) + "x"
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func itoa(n int) string { return strconv.Itoa(n) }
