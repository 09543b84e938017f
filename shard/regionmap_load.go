package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
)

// MapError is one problem in a region map. Feature is the index of the
// feature at fault (-1 for the collection itself) and Shard its shard
// name when it has one.
type MapError struct {
	Feature int
	Shard   string
	Msg     string
}

func (e *MapError) Error() string {
	switch {
	case e.Feature < 0:
		return "region map: " + e.Msg
	case e.Shard == "":
		return fmt.Sprintf("region map: feature %d: %s", e.Feature, e.Msg)
	}
	return fmt.Sprintf("region map: feature %d (shard %q): %s", e.Feature, e.Shard, e.Msg)
}

// rmMaxErrors caps how many problems one load reports.
const rmMaxErrors = 20

// rmErrs collects problems so that one load reports all it can.
type rmErrs struct {
	list    []error
	dropped int
}

func (l *rmErrs) add(feature int, shard, format string, args ...any) {
	if len(l.list) >= rmMaxErrors {
		l.dropped++
		return
	}
	l.list = append(l.list, &MapError{Feature: feature, Shard: shard, Msg: fmt.Sprintf(format, args...)})
}

func (l *rmErrs) err() error {
	if len(l.list) == 0 {
		return nil
	}
	if l.dropped > 0 {
		l.list = append(l.list, fmt.Errorf("region map: %d more problems", l.dropped))
	}
	return errors.Join(l.list...)
}

// rmFeature is a parsed feature: a shard and its polygons
// ([polygon][ring][point]), before geometric validation.
type rmFeature struct {
	name    string
	polys   [][][][2]float64
	single  bool // geometry was a Polygon
	feature int
}

// rmHeader is the collection's own properties.
type rmHeader struct {
	margin   float64
	version  string
	verNum   bool
	catchAll string
}

// LoadMap parses and validates a GeoJSON region map: a FeatureCollection
// of Polygon/MultiPolygon features, each with a "shard" property, and
// optionally collection "properties" {"margin", "version", "catchall"}.
// Nothing is used unless the whole map is valid; the error lists every
// problem found (up to a limit), each naming its feature.
func LoadMap(data []byte) (*Map, error) {
	hdr, feats, err := rmParse(data)
	if err != nil {
		return nil, err
	}
	if hdr.version == "" {
		h := fnv.New64a()
		h.Write(data)
		hdr.version = fmt.Sprintf("fnv-%016x", h.Sum64())
	}
	return rmBuild(hdr, feats)
}

func rmParse(data []byte) (rmHeader, []rmFeature, error) {
	hdr := rmHeader{margin: rmDefaultMargin, catchAll: rmDefaultCatchAll}
	var errs rmErrs
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return hdr, nil, fmt.Errorf("region map: invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err == nil {
		return hdr, nil, errors.New("region map: invalid JSON: data after the top-level value")
	}
	obj, ok := top.(map[string]any)
	if !ok || obj["type"] != "FeatureCollection" {
		return hdr, nil, errors.New("region map: not a GeoJSON FeatureCollection")
	}
	if props, present := obj["properties"]; present && props != nil {
		rmParseHeader(props, &hdr, &errs)
	}
	raw, present := obj["features"]
	list, ok := raw.([]any)
	switch {
	case !present || raw == nil:
		errs.add(-1, "", "empty map (no features)")
	case !ok:
		errs.add(-1, "", "\"features\" is not an array")
	case len(list) == 0:
		errs.add(-1, "", "empty map (no features)")
	case len(list)+1 > rmMaxShards:
		errs.add(-1, "", "too many shards: %d features and the catch-all, at most %d shards", len(list), rmMaxShards)
	}
	if len(errs.list) > 0 {
		return hdr, nil, errs.err()
	}
	feats := make([]rmFeature, 0, len(list))
	seen := make(map[string]int, len(list))
	for i, f := range list {
		ft, ok := rmParseFeature(i, f, &errs)
		if !ok {
			continue
		}
		switch prev, dup := seen[ft.name]; {
		case dup:
			errs.add(i, ft.name, "duplicate shard name, also used by feature %d (a shard with several polygons is one MultiPolygon feature)", prev)
			continue
		case ft.name == hdr.catchAll:
			errs.add(i, ft.name, "shard name is the catch-all's; the catch-all has no polygons")
			continue
		}
		seen[ft.name] = i
		feats = append(feats, ft)
	}
	return hdr, feats, errs.err()
}

func rmParseHeader(props any, hdr *rmHeader, errs *rmErrs) {
	p, ok := props.(map[string]any)
	if !ok {
		errs.add(-1, "", "collection \"properties\" is not an object")
		return
	}
	if v, present := p["margin"]; present {
		n, ok := v.(json.Number)
		f, err := strconv.ParseFloat(string(n), 64)
		switch {
		case !ok || err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			errs.add(-1, "", "margin is not a finite number of metres: %s", rmShow(v))
		case f < 0:
			errs.add(-1, "", "margin is negative: %s", n)
		default:
			hdr.margin = f
		}
	}
	if v, present := p["version"]; present {
		switch v := v.(type) {
		case string:
			hdr.version = v
		case json.Number:
			hdr.version, hdr.verNum = string(v), true
		default:
			errs.add(-1, "", "version is not a string or number: %s", rmShow(v))
		}
	}
	if v, present := p["catchall"]; present {
		s, ok := v.(string)
		if !ok || s == "" {
			errs.add(-1, "", "catchall is not a non-empty string: %s", rmShow(v))
		} else {
			hdr.catchAll = s
		}
	}
}

func rmParseFeature(i int, raw any, errs *rmErrs) (rmFeature, bool) {
	ft := rmFeature{feature: i}
	f, ok := raw.(map[string]any)
	if !ok || f["type"] != "Feature" {
		errs.add(i, "", "not a GeoJSON Feature")
		return ft, false
	}
	props, _ := f["properties"].(map[string]any)
	name, ok := props["shard"].(string)
	if !ok || name == "" {
		errs.add(i, "", "no shard name (properties.shard must be a non-empty string)")
		return ft, false
	}
	ft.name = name
	geom, ok := f["geometry"].(map[string]any)
	if !ok {
		errs.add(i, name, "no geometry")
		return ft, false
	}
	coords := geom["coordinates"]
	switch t := geom["type"]; t {
	case "Polygon":
		ft.single = true
		poly, ok := rmParsePolygon(i, name, "", coords, errs)
		if !ok {
			return ft, false
		}
		ft.polys = [][][][2]float64{poly}
	case "MultiPolygon":
		list, ok := coords.([]any)
		if !ok || len(list) == 0 {
			errs.add(i, name, "MultiPolygon coordinates are not a non-empty array of polygons")
			return ft, false
		}
		good := true
		for j, pc := range list {
			poly, ok := rmParsePolygon(i, name, fmt.Sprintf("polygon %d: ", j), pc, errs)
			good = good && ok
			ft.polys = append(ft.polys, poly)
		}
		if !good {
			return ft, false
		}
	default:
		errs.add(i, name, "unsupported geometry type %s (want Polygon or MultiPolygon)", rmShow(t))
		return ft, false
	}
	return ft, true
}

func rmParsePolygon(i int, name, where string, raw any, errs *rmErrs) ([][][2]float64, bool) {
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		errs.add(i, name, "%spolygon coordinates are not a non-empty array of rings", where)
		return nil, false
	}
	rings := make([][][2]float64, 0, len(list))
	good := true
	for r, rr := range list {
		ring, ok := rmParseRing(i, name, fmt.Sprintf("%sring %d", where, r), rr, errs)
		good = good && ok
		rings = append(rings, ring)
	}
	return rings, good
}

func rmParseRing(i int, name, where string, raw any, errs *rmErrs) ([][2]float64, bool) {
	list, ok := raw.([]any)
	if !ok {
		errs.add(i, name, "%s is not an array of positions", where)
		return nil, false
	}
	ring := make([][2]float64, 0, len(list))
	for k, pos := range list {
		pa, ok := pos.([]any)
		if !ok || len(pa) < 2 {
			errs.add(i, name, "%s, point %d: not a [lon, lat] position", where, k)
			return nil, false
		}
		var v [2]float64
		for c := 0; c < 2; c++ {
			n, ok := pa[c].(json.Number)
			f, err := strconv.ParseFloat(string(n), 64)
			if !ok || err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				errs.add(i, name, "%s, point %d: coordinate %s is not a number", where, k, rmShow(pa[c]))
				return nil, false
			}
			v[c] = f
		}
		if v[0] < rmMinLon || v[0] > rmMaxLon || v[1] < rmMinLat || v[1] > rmMaxLat {
			errs.add(i, name, "%s, point %d: coordinate (%v, %v) out of range (lon -180..180, lat -85.05112878..85.05112878)", where, k, v[0], v[1])
			return nil, false
		}
		ring = append(ring, v)
	}
	if len(ring) < 4 {
		errs.add(i, name, "%s has %d points, a ring needs at least 4 (closed: the last repeats the first)", where, len(ring))
		return nil, false
	}
	if ring[0] != ring[len(ring)-1] {
		errs.add(i, name, "%s is not closed (the last point must repeat the first)", where)
		return nil, false
	}
	return ring, true
}

// rmShow renders a JSON value briefly for an error message.
func rmShow(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}
