package tests

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestAdversarialMap checks the generator itself: a valid, non-overlapping
// map of at most ~600 polygons that really covers where the data lives.
func TestAdversarialMap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.geojson")
	if err := writeAdversarialMap(path, dataAreas); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fc struct {
		Type       string
		Properties struct{ Margin float64 }
		Features   []struct {
			Properties struct{ Shard string }
			Geometry   struct {
				Type        string
				Coordinates json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(raw, &fc); err != nil {
		t.Fatalf("map is not valid JSON: %v", err)
	}
	if fc.Type != "FeatureCollection" || fc.Properties.Margin != adversarialMargin {
		t.Fatalf("type %q margin %v", fc.Type, fc.Properties.Margin)
	}

	names := map[string]bool{}
	var polys []ring
	for _, f := range fc.Features {
		if f.Properties.Shard == "" || names[f.Properties.Shard] {
			t.Fatalf("shard name %q empty or repeated", f.Properties.Shard)
		}
		names[f.Properties.Shard] = true
		var rings [][]ring
		switch f.Geometry.Type {
		case "Polygon":
			var p []ring
			err = json.Unmarshal(f.Geometry.Coordinates, &p)
			rings = [][]ring{p}
		case "MultiPolygon":
			err = json.Unmarshal(f.Geometry.Coordinates, &rings)
		default:
			t.Fatalf("shard %s: geometry type %q", f.Properties.Shard, f.Geometry.Type)
		}
		if err != nil {
			t.Fatalf("shard %s: %v", f.Properties.Shard, err)
		}
		for _, p := range rings {
			if len(p) != 1 || len(p[0]) < 4 || p[0][0] != p[0][len(p[0])-1] {
				t.Fatalf("shard %s: ring not closed or has holes: %v", f.Properties.Shard, p)
			}
			if area2(p[0]) <= 0 {
				t.Fatalf("shard %s: ring is not counter-clockwise", f.Properties.Shard)
			}
			for _, c := range p[0] {
				if c[0] < -180 || c[0] > 180 || c[1] < -maxLat || c[1] > maxLat {
					t.Fatalf("shard %s: coordinate %v out of range", f.Properties.Shard, c)
				}
			}
			polys = append(polys, p[0])
		}
	}
	if len(polys) < 400 || len(polys) > 650 {
		t.Fatalf("%d polygons, want about 600", len(polys))
	}
	t.Logf("%d shards, %d polygons, %d bytes", len(names), len(polys), len(raw))

	// Rectangles may share edges but not interiors; each triangle pair
	// shares its cell, so compare the cells' boxes once per distinct box.
	boxes := map[[4]float64]bool{}
	var list [][4]float64
	for _, p := range polys {
		b := bbox(p)
		if !boxes[b] {
			boxes[b] = true
			list = append(list, b)
		}
	}
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			a, b := list[i], list[j]
			if a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3] {
				t.Fatalf("cells %v and %v overlap", a, b)
			}
		}
	}

	// Most clustered random points must fall inside some cell.
	v := valueGen{r: rand.New(rand.NewPCG(1, 2))}
	inside := 0
	const n = 2000
	for i := 0; i < n; i++ {
		p := v.point()
		for _, b := range list {
			if p.lon >= b[0] && p.lon <= b[2] && p.lat >= b[1] && p.lat <= b[3] {
				inside++
				break
			}
		}
	}
	if inside < n/2 {
		t.Fatalf("only %d of %d random points fall in the adversarial cells", inside, n)
	}
}

func bbox(r ring) [4]float64 {
	b := [4]float64{r[0][0], r[0][1], r[0][0], r[0][1]}
	for _, c := range r {
		b[0], b[1] = min(b[0], c[0]), min(b[1], c[1])
		b[2], b[3] = max(b[2], c[0]), max(b[3], c[1])
	}
	return b
}

// area2 is twice the signed area (positive for counter-clockwise rings).
func area2(r ring) float64 {
	s := 0.0
	for i := 0; i+1 < len(r); i++ {
		s += r[i][0]*r[i+1][1] - r[i+1][0]*r[i][1]
	}
	return s
}
