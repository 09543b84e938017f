package plan

import (
	"strings"
	"testing"

	"geoshard/shard"
)

// TestReplayCounts walks one driver east across the border of a two-cell
// grid at lon 0: a ping 111 m past the border stays (a suppressed flap),
// one 1.1 km past hands over. A search at the border asks both shards.
func TestReplayCounts(t *testing.T) {
	m := shard.GridMap(-1, -1, 1, 1, 2, 1, 200)
	w := &Workload{
		Pings: []Ping{
			{T: 0, ID: "d", Lon: -0.01, Lat: 0},
			{T: 4, ID: "d", Lon: 0.001, Lat: 0},
			{T: 8, ID: "d", Lon: 0.01, Lat: 0},
			{T: 12, ID: "e", Lon: -0.5, Lat: 0},
		},
		Searches: []Search{
			{T: 1, Lon: 0, Lat: 0.5, RadiusM: 1000},
			{T: 2, Lon: -0.5, Lat: 0.5, RadiusM: 1000},
			{T: 3600, Lon: 0.5, Lat: 0.5, RadiusM: 1000},
		},
	}
	r := Replay("grid", m, w)
	west, _ := m.Lookup("cell-0-0")
	east, _ := m.Lookup("cell-1-0")
	checks := []struct {
		name      string
		got, want int64
	}{
		{"searches", r.Searches, 3},
		{"fan-out", r.FanOut, 1},
		{"handoffs", r.Handoffs, 1},
		{"flaps", r.FlapsSuppressed, 1},
		{"west members", r.Shards[west].Members, 1},
		{"east members", r.Shards[east].Members, 1},
		{"east handoffs in", r.Shards[east].HandoffsIn, 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	br, ok := r.Border(east, west)
	if !ok || br.Handoffs != 1 || br.Flaps != 1 || br.Searches != 1 {
		t.Errorf("border = %+v, %v", br, ok)
	}
	if got := r.PerHour(r.Handoffs); got != 1 {
		t.Errorf("handoffs per hour = %v over a one-hour workload, want 1", got)
	}
	if got := r.Balance(); got != 1 {
		t.Errorf("balance = %v, want 1", got)
	}
	var out strings.Builder
	if err := r.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cell-0-0|cell-1-0", "33.33%", "fan-out %"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}
