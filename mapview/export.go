package mapview

import (
	"encoding/csv"
	"net/http"
	"strconv"
)

// geojson serves /map/map.geojson: the region map as the server loads it
// (geoshard --regions, CONFIG SET regions), each shard carrying its
// counters, and the borders' counters and lines in the collection's
// properties, which the loader ignores.
func (h *handler) geojson(w http.ResponseWriter, _ *http.Request) {
	s := h.snapshot()
	m := h.router().Regions()
	type feature struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Geometry   map[string]any `json:"geometry"`
	}
	feats := []feature{}
	for _, v := range s.Shards {
		if len(v.Areas) == 0 {
			continue
		}
		feats = append(feats, feature{Type: "Feature",
			Properties: map[string]any{"shard": v.Name, "members": v.Members, "writes": v.Writes,
				"handoffs_in": v.HandoffsIn, "handoffs_out": v.HandoffsOut, "searches": v.Searches, "degraded": v.Degraded},
			Geometry: map[string]any{"type": "MultiPolygon", "coordinates": v.Areas}})
	}
	w.Header().Set("Content-Disposition", `attachment; filename="geoshard-map.geojson"`)
	writeJSON(w, map[string]any{
		"type": "FeatureCollection",
		"properties": map[string]any{"version": s.Version, "margin": s.Margin,
			"catchall": m.Name(m.CatchAll()), "time_ms": s.TimeMs, "borders": s.Borders},
		"features": feats,
	})
}

// csv serves /map/figures.csv: one row per shard and per border, totals
// since the server started, for a spreadsheet.
func (h *handler) csv(w http.ResponseWriter, _ *http.Request) {
	s := h.snapshot()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="geoshard-figures.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	cw.Write([]string{"kind", "name", "members", "writes", "handoffs_in", "handoffs_out",
		"handoffs", "flaps_suppressed", "searches", "degraded", "time_ms"})
	t := n(s.TimeMs)
	for _, v := range s.Shards {
		cw.Write([]string{"shard", v.Name, n(v.Members), n(v.Writes), n(v.HandoffsIn), n(v.HandoffsOut),
			"", "", n(v.Searches), n(v.Degraded), t})
	}
	for _, b := range s.Borders {
		cw.Write([]string{"border", b.Name, "", "", "", "", n(b.Handoffs), n(b.Flaps), n(b.Searches), "", t})
	}
	cw.Flush()
}
