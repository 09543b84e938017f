package mapview

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/router"
	"geoshard/shard"
)

// busyRouter is a router over a 3x2 grid with members in every cell (37),
// 70 more in the catch-all, one handoff and one search across a border.
func busyRouter(t testing.TB) *router.Router {
	t.Helper()
	m := shard.GridMap(4.6, 52.2, 5.2, 52.5, 3, 2, 200)
	r := router.New(router.Config{Regions: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	k := shard.Key{Name: "drivers"}
	n := 0
	for lon := 4.65; lon < 5.2; lon += 0.1 {
		for lat := 52.22; lat < 52.5; lat += 0.05 {
			r.Add(k, "d"+string(rune('a'+n%26))+string(rune('a'+n/26)), geo.Encode(lon, lat), router.AddFlags{})
			n++
		}
	}
	// 70 drivers far away in the catch-all make the key too big for the
	// router to search it by the shards that hold it: searches then ask
	// the shards their area touches, as for a real fleet.
	for i := 0; i < 70; i++ {
		r.Add(k, "far-"+string(rune('a'+i%26))+string(rune('a'+i/26)), geo.Encode(-70+float64(i%10)*0.01, -30+float64(i/10)*0.01), router.AddFlags{})
	}
	// d-move starts in cell-0-0 and crosses into cell-1-0 (border at lon 4.8).
	r.Add(k, "d-move", geo.Encode(4.75, 52.25), router.AddFlags{})
	r.Add(k, "d-move", geo.Encode(4.85, 52.25), router.AddFlags{})
	r.Search(k, geo.NewSearch(4.8, 52.25, geo.Shape{Radius: 2, Unit: 1000}), 10)
	return r
}

func get(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

func TestHandlerRoutes(t *testing.T) {
	h := Handler(busyRouter(t))
	cases := []struct {
		method, path string
		code         int
		ctype, body  string
	}{
		{"GET", "/map", 200, "text/html", `"name":"cell-2-1"`},
		{"GET", "/map/", 200, "text/html", `<script src="/map/map.js">`},
		{"GET", "/map/map.js", 200, "text/javascript", "data-shard"},
		{"GET", "/map/data.json", 200, "application/json", `"version":"grid-3x2`},
		{"GET", "/map/vendor/leaflet.js", 200, "text/javascript", "Leaflet"},
		{"GET", "/map/vendor/countries-50m.json", 200, "application/json", `"countries"`},
		{"GET", "/map/density.json?step=12", 200, "application/json", `"step":12`},
		{"GET", "/map/map.geojson", 200, "application/json", `"FeatureCollection"`},
		{"GET", "/map/figures.csv", 200, "text/csv", "border,cell-0-0|cell-1-0"},
		{"GET", "/map/other", 404, "", ""},
		{"POST", "/map", 405, "", ""},
	}
	for _, c := range cases {
		rec := get(t, h, c.method, c.path)
		if rec.Code != c.code {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.code)
			continue
		}
		if !strings.HasPrefix(rec.Header().Get("Content-Type"), c.ctype) || !strings.Contains(rec.Body.String(), c.body) {
			t.Errorf("%s %s: %s, body lacks %q", c.method, c.path, rec.Header().Get("Content-Type"), c.body)
		}
	}
	if page := get(t, h, "GET", "/map").Body.String(); strings.Contains(page, "INITIAL_DATA") {
		t.Error("the page kept its data placeholder")
	}
}

func TestSnapshot(t *testing.T) {
	h := Handler(busyRouter(t))
	var s Snapshot
	if err := json.Unmarshal(get(t, h, "GET", "/map/data.json").Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Shards) != 7 || !s.Shards[6].CatchAll || len(s.Shards[6].Areas) != 0 {
		t.Fatalf("shards: %+v", s.Shards)
	}
	var members int64
	for _, sh := range s.Shards[:6] {
		if len(sh.Areas) != 1 || sh.Members == 0 {
			t.Errorf("%s: %d areas, %d members", sh.Name, len(sh.Areas), sh.Members)
		}
		members += sh.Members
	}
	if members != 37 {
		t.Errorf("%d members in all, want 37", members)
	}
	// 7 borders between cells sharing an edge, 6 with the catch-all.
	if len(s.Borders) != 13 {
		t.Errorf("%d borders, want 13", len(s.Borders))
	}
	for _, b := range s.Borders {
		want := int64(0)
		if b.Name == "cell-0-0|cell-1-0" {
			want = 1
		}
		if b.Handoffs != want || b.Searches != want || len(b.Segments) == 0 {
			t.Errorf("%s: %d handoffs, %d searches, %d segments", b.Name, b.Handoffs, b.Searches, len(b.Segments))
		}
	}
	if s.FanOut[0] != 0 || s.FanOut[1] != 1 || s.View != [4]float64{4.6, 52.2, 5.2, 52.5} {
		t.Errorf("fanout %v, view %v", s.FanOut, s.View)
	}
}

// TestSnapshotCreatesNoBorders: drawing the map must not add empty border
// counters that INFO would then list.
func TestSnapshotCreatesNoBorders(t *testing.T) {
	r := busyRouter(t)
	before := len(r.Stats().Borders())
	get(t, Handler(r), "GET", "/map/data.json")
	if after := len(r.Stats().Borders()); after != before {
		t.Errorf("borders with counters: %d before, %d after", before, after)
	}
}
