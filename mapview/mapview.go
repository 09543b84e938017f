// Package mapview serves a live map of a router's region map at /map: a
// Leaflet map (vendored from npm into the binary, see vendor.sh) over a
// tile base layer when one is configured and, always, Natural Earth
// coastlines and country borders, so the page is never blank offline.
// Shard areas, margins and borders are coloured by live fan-out or
// handoff rates with a legend of values; a density layer shows member
// counts per geohash cell inside the shards, from cached walks over the
// index (density.go); the page can download the map as GeoJSON and its
// figures as CSV.
package mapview

//go:generate sh vendor.sh

import (
	"bytes"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"geoshard/plan"
	"geoshard/router"
	"geoshard/shard"
)

//go:embed assets/map.html assets/map.js assets/vendor
var assets embed.FS

// DefaultTiles is the base layer when none is configured: OpenStreetMap's
// standard tiles, fetched by the viewer's browser, not by the server.
const DefaultTiles = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

// Options shape the page.
type Options struct {
	// Tiles is a Leaflet tile URL template ({z}/{x}/{y}); "none" draws
	// no tile layer (offline); "" is DefaultTiles.
	Tiles string
}

// initMarker is replaced in the page by the first snapshot and the page's
// settings, so the map draws as the page loads.
var initMarker = []byte("/*INITIAL_DATA*/null")

// Handler serves the map of one router with default options.
func Handler(r *router.Router) http.Handler {
	return Live(func() *router.Router { return r }, Options{})
}

// Live serves /map (and /map/): the page; /map/map.js and /map/vendor/...:
// its scripts; /map/data.json: the live snapshot; /map/density.json:
// members per geohash cell; /map/map.geojson and /map/figures.csv: the
// downloads. Every request reads the router current returns then, so a
// reloaded region map shows at once. Mount it for both "/map" and "/map/".
func Live(current func() *router.Router, opts Options) http.Handler {
	if opts.Tiles == "" {
		opts.Tiles = DefaultTiles
	}
	h := &handler{router: current, opts: opts}
	vendor, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix("/map/", http.FileServerFS(vendor))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /map", h.page)
	mux.HandleFunc("GET /map/{$}", h.page)
	mux.Handle("GET /map/map.js", files)
	mux.Handle("GET /map/vendor/", files)
	mux.HandleFunc("GET /map/data.json", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, h.snapshot()) })
	mux.HandleFunc("GET /map/density.json", h.density)
	mux.HandleFunc("GET /map/map.geojson", h.geojson)
	mux.HandleFunc("GET /map/figures.csv", h.csv)
	return mux
}

type handler struct {
	router func() *router.Router
	opts   Options
	cells  densityCache

	// Border lines and label points depend only on the map, which is
	// immutable; they are worked out once per map.
	mu     sync.Mutex
	m      *shard.Map
	lines  []plan.BorderLine
	labels [][2]float64
}

func (h *handler) geometry(m *shard.Map) ([]plan.BorderLine, [][2]float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m != m {
		h.m, h.lines, h.labels = m, plan.BorderLines(m), make([][2]float64, m.Len())
		for id := range h.labels {
			if p, ok := plan.LabelPoint(m.Areas(shard.ID(id))); ok {
				h.labels[id] = p
			}
		}
	}
	return h.lines, h.labels
}

// pageInit is what the page starts from.
type pageInit struct {
	Tiles string    `json:"tiles"`
	Data  *Snapshot `json:"data"`
}

func (h *handler) page(w http.ResponseWriter, _ *http.Request) {
	data, err := json.Marshal(pageInit{Tiles: h.opts.Tiles, Data: h.snapshot()})
	if err != nil {
		http.Error(w, "encoding the map: "+err.Error(), http.StatusInternalServerError)
		return
	}
	html, _ := assets.ReadFile("assets/map.html")
	// json.Marshal escapes <, > and &, so the data cannot end the script.
	page := bytes.Replace(html, initMarker, data, 1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, "encoding the map: "+err.Error(), http.StatusInternalServerError)
	}
}

// ValidTiles reports whether s is a tile URL template Leaflet can use: an
// http(s) URL with {z}, {x} and {y}.
func ValidTiles(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		strings.Contains(s, "{z}") && strings.Contains(s, "{x}") && strings.Contains(s, "{y}")
}
