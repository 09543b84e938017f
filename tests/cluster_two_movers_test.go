package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterTwoMovers: two GEOADDs of one member through two nodes at
// once, from New York, one to Amsterdam and the other to Sydney, or one to
// Amsterdam and the other a few metres on in New York (an update in
// place). Whichever wins, searches through every node find the member in
// one of those places only. Each handoff deleted the one old copy it read,
// and the older of the two new copies stayed until the position TTL: the
// member was in two cities in 15-18 of 300 rounds (two movers), and 4-12
// of 300 (a mover and an update in place).
func TestClusterTwoMovers(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b := tc.nodes["a"].c, tc.nodes["b"].c
	ny := [2]float64{-73.99, 40.72}
	ams := [2]float64{4.9, 52.37}
	cases := []struct {
		name   string
		places [][2]float64 // a sends the member to the first, b to the second; searched around each
	}{
		{"two movers", [][2]float64{ams, {151.2, -33.86}, ny}},
		{"a mover and an update in place", [][2]float64{ams, {-73.991, 40.721}}}, // New York's search is b's
	}
	const rounds = 300
	for _, tt := range cases {
		places := tt.places
		wrong := 0
		for i := range rounds {
			m := fmt.Sprintf("%s:%d", tt.name, i)
			if err := tc.nodes["c"].c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: ny[0], Latitude: ny[1]}).Err(); err != nil {
				t.Fatal(err)
			}
			move := func(side int, cl *redis.Client) func() {
				return func() {
					args := []any{"GEOADD", "k", places[side][0], places[side][1], m}
					if i%2 == 1 {
						args = []any{"GEOADD", "k", "XX", places[side][0], places[side][1], m}
					}
					// -TRYAGAIN (a conditional write that lost 16 times)
					// stores nothing or all: the member is still in one place.
					if err := cl.Do(ctx, args...).Err(); err != nil && !strings.HasPrefix(err.Error(), "TRYAGAIN") {
						t.Error(err)
					}
				}
			}
			atOnce(i, move(0, a), move(1, b)) // cluster_remove_race_test.go
			bad := false
			for _, id := range []string{"a", "b", "c"} {
				if in := timesFound(ctx, t, tc.nodes[id].c, m, places); in != 1 {
					bad = true
					if wrong < 5 {
						t.Errorf("%s: searches through %s near %v found it %d times, want once", m, id, places, in)
					}
				}
			}
			if bad {
				wrong++
			}
			if err := tc.nodes["c"].c.ZRem(ctx, "k", m).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if wrong > 0 {
			t.Errorf("%s: %d of %d rounds left the member in more or fewer places than one", tt.name, wrong, rounds)
		}
	}
}

// timesFound counts the searches within 50 km of each of places, through
// c, that find member m in key k.
func timesFound(ctx context.Context, t *testing.T, c *redis.Client, m string, places [][2]float64) int {
	t.Helper()
	in := 0
	for _, p := range places {
		got, err := c.Do(ctx, "GEOSEARCH", "k", "FROMLONLAT", p[0], p[1], "BYRADIUS", 50, "km").StringSlice()
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range got {
			if g == m {
				in++
			}
		}
	}
	return in
}
