package plan

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"geoshard/router"
	"geoshard/shard"
)

// Report is what one map cost on one workload.
type Report struct {
	Name  string // how the caller named the map (its file, say)
	Map   *shard.Map
	Hours float64 // the workload's span
	Pings int
	// Searches counts the searches the router ran; FanOut those that asked
	// more than one shard.
	Searches, FanOut int64
	Handoffs         int64
	FlapsSuppressed  int64
	Degraded         int64
	Shards           []ShardReport // in ID order, the catch-all included
	Borders          []BorderReport
}

// ShardReport is one shard's counters; Members is what it holds at the
// end of the replay.
type ShardReport struct {
	ID                                                 shard.ID
	Name                                               string
	Members, Writes, HandoffsIn, HandoffsOut, Searches int64
}

// BorderReport is one border's counters. Searches counts the searches that
// asked both shards.
type BorderReport struct {
	A, B                      shard.ID
	NameA, NameB              string
	Searches, Handoffs, Flaps int64
}

func newReport(name string, r *router.Router, pings int, span float64) *Report {
	m := r.Regions()
	st := r.Stats()
	rep := &Report{Name: name, Map: m, Hours: span / 3600, Pings: pings, Degraded: st.Degraded.Load()}
	for n := 1; n < len(st.FanOut); n++ {
		c := st.FanOut[n].Load()
		rep.Searches += c
		if n > 1 {
			rep.FanOut += c
		}
	}
	members := r.ShardMembers()
	for i := range st.Shards {
		s := &st.Shards[i]
		rep.Shards = append(rep.Shards, ShardReport{
			ID: shard.ID(i), Name: m.Name(shard.ID(i)), Members: members[i],
			Writes: s.Writes.Load(), HandoffsIn: s.HandoffsIn.Load(), HandoffsOut: s.HandoffsOut.Load(),
			Searches: s.Searches.Load(),
		})
	}
	for _, b := range st.Borders() {
		bs := st.Border(b.A, b.B)
		br := BorderReport{
			A: b.A, B: b.B, NameA: m.Name(b.A), NameB: m.Name(b.B),
			Searches: bs.Searches.Load(), Handoffs: bs.Handoffs.Load(), Flaps: bs.FlapsSuppressed.Load(),
		}
		rep.Handoffs += br.Handoffs
		rep.FlapsSuppressed += br.Flaps
		rep.Borders = append(rep.Borders, br)
	}
	return rep
}

// FanOutShare is the share of searches that asked more than one shard.
func (r *Report) FanOutShare() float64 { return ratio(float64(r.FanOut), float64(r.Searches)) }

// PerHour turns a count over the workload into a rate per hour.
func (r *Report) PerHour(n int64) float64 { return ratio(float64(n), r.Hours) }

// Balance is the most members any area shard holds over the mean of the
// area shards (1 is perfect balance); the catch-all is left out, as it
// owns only what the areas miss.
func (r *Report) Balance() float64 {
	var total, most int64
	n := 0
	for _, s := range r.Shards {
		if s.ID == r.Map.CatchAll() {
			continue
		}
		total += s.Members
		most = max(most, s.Members)
		n++
	}
	return ratio(float64(most)*float64(n), float64(total))
}

// Border returns the report of the border between a and b, if it saw
// traffic.
func (r *Report) Border(a, b shard.ID) (BorderReport, bool) {
	if a > b {
		a, b = b, a
	}
	for _, br := range r.Borders {
		if br.A == a && br.B == b {
			return br, true
		}
	}
	return BorderReport{}, false
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// WriteSummary prints one line per map, for comparing candidates.
func WriteSummary(w io.Writer, reps ...*Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "map\tshards\tsearches\tfan-out\tfan-out %\thandoffs\thandoffs/h\tflaps suppressed\tdegraded\tbalance (max/mean)\t")
	for _, r := range reps {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.2f%%\t%d\t%.0f\t%d\t%d\t%.2f\t\n", r.Name, r.Map.Len(), r.Searches, r.FanOut,
			100*r.FanOutShare(), r.Handoffs, r.PerHour(r.Handoffs), r.FlapsSuppressed, r.Degraded, r.Balance())
	}
	return tw.Flush()
}

// WriteTable prints a map's report in full: the totals, then per shard
// and per border.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "== %s (version %s, %d shards, margin %g m, %.2f h of workload, %d pings)\n",
		r.Name, r.Map.Version(), r.Map.Len(), r.Map.Margin(), r.Hours, r.Pings)
	fmt.Fprintf(&b, "searches %d, fanned out %d (%.2f%%); handoffs %d (%.0f/h); flaps suppressed %d (%.0f/h); degraded %d; balance %.2f\n",
		r.Searches, r.FanOut, 100*r.FanOutShare(), r.Handoffs, r.PerHour(r.Handoffs),
		r.FlapsSuppressed, r.PerHour(r.FlapsSuppressed), r.Degraded, r.Balance())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "shard\tmembers\twrites\thandoffs in\thandoffs out\tsearches\t")
	for _, s := range r.Shards {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", s.Name, s.Members, s.Writes, s.HandoffsIn, s.HandoffsOut, s.Searches)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "border\tsearches\t% of searches\thandoffs\thandoffs/h\tflaps suppressed\t")
	for _, br := range r.Borders {
		fmt.Fprintf(tw, "%s|%s\t%d\t%.2f%%\t%d\t%.0f\t%d\t\n", br.NameA, br.NameB, br.Searches,
			100*ratio(float64(br.Searches), float64(r.Searches)), br.Handoffs, r.PerHour(br.Handoffs), br.Flaps)
	}
	tw.Flush()
	_, err := io.WriteString(w, b.String())
	return err
}
