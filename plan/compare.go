package plan

import (
	"fmt"
	"io"

	"geoshard/geo"
	"geoshard/shard"
)

// Comparison is a proposal judged next to the equal grid of as many
// shards over the same area, on the same workload, so that a proposal
// that loses is never presented as a win.
type Comparison struct {
	Proposal, Grid *Report
	// Losses says, one line each, where the proposal does worse than the
	// grid: fan-out, handoffs, suppressed flaps, balance. Empty: it wins
	// or ties on all four.
	Losses []string
}

// Compare replays the workload on the proposal and on NaiveGrid(bounds,
// n, margin) and lists where the proposal loses.
func Compare(w *Workload, name string, proposal *shard.Map, bounds geo.Rect, n int, margin float64) (*Comparison, error) {
	grid, err := NaiveGrid(bounds, n, margin)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Proposal: Replay(name, proposal, w), Grid: Replay(fmt.Sprintf("equal grid, %d cells", n), grid, w)}
	p, g := c.Proposal, c.Grid
	if p.FanOutShare() > g.FanOutShare() {
		c.Losses = append(c.Losses, fmt.Sprintf("more searches fan out: %.2f %% against the grid's %.2f %%",
			100*p.FanOutShare(), 100*g.FanOutShare()))
	}
	if p.Handoffs > g.Handoffs {
		c.Losses = append(c.Losses, fmt.Sprintf("more handoffs: %d against the grid's %d", p.Handoffs, g.Handoffs))
	}
	if p.FlapsSuppressed > g.FlapsSuppressed {
		c.Losses = append(c.Losses, fmt.Sprintf("more suppressed flaps: %d against the grid's %d",
			p.FlapsSuppressed, g.FlapsSuppressed))
	}
	if p.Balance() > g.Balance() {
		c.Losses = append(c.Losses, fmt.Sprintf("less balanced: the fullest shard holds %.2fx the mean against the grid's %.2fx",
			p.Balance(), g.Balance()))
	}
	return c, nil
}

// Worse reports whether the proposal loses to the grid on both costs that
// borders are drawn to cut, fan-out and handoffs: then the grid is the
// better map.
func (c *Comparison) Worse() bool {
	p, g := c.Proposal, c.Grid
	return p.FanOutShare() > g.FanOutShare() && p.Handoffs > g.Handoffs
}

// WriteVerdict prints the comparison in plain words.
func (c *Comparison) WriteVerdict(w io.Writer) error {
	var err error
	say := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	switch {
	case len(c.Losses) == 0:
		say("verdict: the proposal beats or ties the equal grid on fan-out, handoffs, flaps and balance\n")
	case c.Worse():
		say("WARNING: the proposal is WORSE than the equal grid; use the grid (--naive-out) or change the options:\n")
	default:
		say("WARNING: the proposal loses to the equal grid on:\n")
	}
	for _, l := range c.Losses {
		say("  - %s\n", l)
	}
	return err
}
