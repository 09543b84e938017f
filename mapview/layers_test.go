package mapview

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// TestWorldLabels: on the embedded world map every shard's name sits
// inside that shard, and the continents' names on their continents.
func TestWorldLabels(t *testing.T) {
	r := router.New(router.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	var s Snapshot
	if err := json.Unmarshal(get(t, Handler(r), "GET", "/map/data.json").Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	m := r.Regions()
	// A box on land well inside each continent (lon0, lat0, lon1, lat1).
	on := map[string][4]float64{
		"north-america": {-170, 10, -50, 85}, "south-america": {-82, -56, -34, 13},
		"europe": {-25, 35, 45, 72}, "africa": {-18, -35, 52, 37}, "oceania": {110, -50, 180, 10},
	}
	labelled := 0
	for _, v := range s.Shards {
		if v.CatchAll {
			continue
		}
		if v.Label == nil {
			t.Errorf("%s has no label", v.Name)
			continue
		}
		labelled++
		lon, lat := v.Label[0], v.Label[1]
		if id := m.Locate(lon, lat); m.Name(id) != v.Name {
			t.Errorf("%s labelled at %.1f,%.1f, which is in %s", v.Name, lon, lat, m.Name(id))
		}
		if b, ok := on[v.Name]; ok && (lon < b[0] || lon > b[2] || lat < b[1] || lat > b[3]) {
			t.Errorf("%s labelled at %.1f,%.1f, off its continent %v", v.Name, lon, lat, b)
		}
	}
	if labelled < 10 {
		t.Errorf("%d shards labelled, want every one of the world map's 10", labelled)
	}
}

func TestDensity(t *testing.T) {
	r := busyRouter(t)
	h := Handler(r)
	var members int64
	for _, n := range r.ShardMembers() {
		members += n
	}
	cases := []struct {
		query string
		code  int
		total int64 // members in the reply; -1: do not check
	}{
		{"step=15", 200, members},
		{"step=26", 200, members},
		{"step=4", 200, members},
		{"step=15&bbox=4.6,52.2,4.79,52.34", 200, 6}, // cell-0-0's members only
		{"step=15&bbox=10,40,11,41", 200, 0},         // nobody there
		{"step=0", 400, -1}, {"step=27", 400, -1}, {"step=x", 400, -1}, {"", 400, -1},
		{"step=15&bbox=5,52,4,53", 400, -1}, {"step=15&bbox=1,2,3", 400, -1},
	}
	for _, c := range cases {
		rec := get(t, h, "GET", "/map/density.json?"+c.query)
		if rec.Code != c.code {
			t.Errorf("%s: %d, want %d: %s", c.query, rec.Code, c.code, rec.Body)
			continue
		}
		if c.code != 200 {
			continue
		}
		var d Density
		if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		var sum, top int64
		for _, cell := range d.Cells {
			sum += cell.Count
			top = max(top, cell.Count)
			if cell.Box[0] >= cell.Box[2] || cell.Box[1] >= cell.Box[3] {
				t.Errorf("%s: empty box %v", c.query, cell.Box)
			}
		}
		if sum != c.total || d.Total != c.total || d.Max != top {
			t.Errorf("%s: cells sum to %d (total %d, max %d/%d), want %d", c.query, sum, d.Total, d.Max, top, c.total)
		}
	}
}

// TestCellBox: a member's cell contains the position GEOPOS reports.
func TestCellBox(t *testing.T) {
	for _, p := range [][2]float64{{4.9, 52.37}, {-122.4, 37.8}, {151.2, -33.9}, {-179.99, -85}, {0, 0}} {
		score := geo.Encode(p[0], p[1])
		lon, lat := geo.Decode(score)
		for _, step := range []uint{1, 8, 15, 26} {
			box, ok := cellBox(uint64(score)>>(2*(geo.Step-step)), step)
			if !ok || lon < box[0] || lon > box[2] || lat < box[1] || lat > box[3] {
				t.Errorf("%v step %d: box %v (%v) misses %v,%v", p, step, box, ok, lon, lat)
			}
		}
	}
}

// TestDownloads: the GeoJSON loads back as the same region map, and the
// CSV has a row per shard and border with the counters.
func TestDownloads(t *testing.T) {
	r := busyRouter(t)
	h := Handler(r)
	m, err := shard.LoadMap(get(t, h, "GET", "/map/map.geojson").Body.Bytes())
	if err != nil {
		t.Fatalf("the download does not load: %v", err)
	}
	if m.Len() != r.Regions().Len() || m.Version() != r.Regions().Version() || m.Margin() != r.Regions().Margin() {
		t.Errorf("loaded %d shards %q margin %v, want %s", m.Len(), m.Version(), m.Margin(), r.Regions())
	}
	for _, p := range [][2]float64{{4.7, 52.3}, {5.1, 52.45}, {0, 0}} {
		if a, b := m.Name(m.Locate(p[0], p[1])), r.Regions().Name(r.Regions().Locate(p[0], p[1])); a != b {
			t.Errorf("%v: %s in the download, %s in the server", p, a, b)
		}
	}
	rows, err := csv.NewReader(get(t, h, "GET", "/map/figures.csv").Body).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+7+13 {
		t.Fatalf("%d rows, want a header, 7 shards and 13 borders", len(rows))
	}
	found := false
	for _, row := range rows {
		if row[0] == "border" && row[1] == "cell-0-0|cell-1-0" {
			found = row[6] == "1" && row[8] == "1"
		}
	}
	if !found {
		t.Error("the busy border's row lacks its handoff and search")
	}
}

func TestTiles(t *testing.T) {
	cases := []struct {
		tiles string
		valid bool
		page  string
	}{
		{"", false, `"tiles":"https://tile.openstreetmap.org/{z}/{x}/{y}.png"`},
		{"none", false, `"tiles":"none"`},
		{"http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png", true, `"tiles":"http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png"`},
		{"https://tiles.example/{z}/{x}.png", false, ""},
		{"ftp://tiles.example/{z}/{x}/{y}.png", false, ""},
		{"/{z}/{x}/{y}.png", false, ""},
	}
	r := busyRouter(t)
	for _, c := range cases {
		if ValidTiles(c.tiles) != c.valid {
			t.Errorf("ValidTiles(%q) = %v", c.tiles, !c.valid)
		}
		if c.page == "" {
			continue
		}
		page := get(t, Live(func() *router.Router { return r }, Options{Tiles: c.tiles}), "GET", "/map").Body.String()
		if !strings.Contains(page, c.page) {
			t.Errorf("tiles %q: page lacks %s", c.tiles, c.page)
		}
	}
}
