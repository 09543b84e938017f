package shard

import (
	"fmt"
	"strconv"
	"testing"
)

// The borders of a grid are its cells' 8 neighbours (corners touch) and,
// for the cells on its rim, the catch-all: a few per area, found once per
// map, whatever the map's size.
func TestBordersOfGrids(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cols, rows int
	}{
		{"1x1", 1, 1},
		{"2x1", 2, 1},
		{"3x3", 3, 3},
		{"100x100", 100, 100}, // 10,000 areas
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, r := tc.cols, tc.rows
			m := GridMap(0, 40, 10, 50, c, r, 200)
			rim := 2*c + 2*r - 4
			if c == 1 || r == 1 {
				rim = c * r
			}
			want := (c-1)*r + c*(r-1) + 2*(c-1)*(r-1) + rim
			if got := m.Borders(); got != want {
				t.Fatalf("%d borders, want %d", got, want)
			}
			for i := range m.Borders() {
				a, b := m.BorderAt(i)
				if a >= b {
					t.Fatalf("border %d is %d-%d: not lower first", i, a, b)
				}
				if j, ok := m.Border(b, a); !ok || j != i {
					t.Fatalf("border %d-%d numbered %d (%v), want %d", a, b, j, ok, i)
				}
			}
			cell := func(i, j int) ID {
				id, _ := m.Lookup(cellName(i, j))
				return id
			}
			if c >= 3 && r >= 3 {
				for _, pair := range [][2]ID{{cell(0, 0), cell(2, 0)}, {cell(1, 1), m.CatchAll()}} {
					if _, ok := m.Border(pair[0], pair[1]); ok {
						t.Errorf("%s and %s are far apart, yet a border", m.Name(pair[0]), m.Name(pair[1]))
					}
				}
				if _, ok := m.Border(cell(1, 1), cell(2, 2)); !ok {
					t.Error("cells meeting at a corner are not a border")
				}
			}
			above, first := m.Neighbours(cell(0, 0))
			for j, b := range above {
				if got, ok := m.Border(cell(0, 0), b); !ok || got != first+j {
					t.Fatalf("Neighbours: border with %s is %d, Border says %d", m.Name(b), first+j, got)
				}
			}
		})
	}
}

// The margin is part of a border: areas a few metres apart border each
// other with a 200 m margin and not with none.
func TestBordersIncludeMargin(t *testing.T) {
	gap := 10.0 / rmMetresPerDeg // 10 m in degrees of longitude at the equator
	for _, tc := range []struct {
		margin float64
		want   bool
	}{{0, false}, {200, true}} {
		m, err := LoadMap([]byte(twoBoxes(gap, tc.margin)))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := m.Lookup("a")
		b, _ := m.Lookup("b")
		if _, ok := m.Border(a, b); ok != tc.want {
			t.Errorf("margin %g: border %v, want %v", tc.margin, ok, tc.want)
		}
	}
}

func cellName(i, j int) string { return fmt.Sprintf("cell-%d-%d", i, j) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// twoBoxes is a map of two 1-degree boxes on the equator gap degrees apart.
func twoBoxes(gap, margin float64) string {
	box := func(name string, x0 float64) string {
		x1 := x0 + 1
		return `{"type":"Feature","properties":{"shard":"` + name + `"},"geometry":{"type":"Polygon","coordinates":[[[` +
			ftoa(x0) + `,0],[` + ftoa(x1) + `,0],[` + ftoa(x1) + `,1],[` + ftoa(x0) + `,1],[` + ftoa(x0) + `,0]]]}}`
	}
	return `{"type":"FeatureCollection","properties":{"margin":` + ftoa(margin) + `},"features":[` +
		box("a", 0) + `,` + box("b", 1+gap) + `]}`
}
