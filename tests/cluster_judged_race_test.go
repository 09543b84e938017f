package tests

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterMoveWhileJudgedInPlace: a GEOADD moving a member from
// Amsterdam to Tokyo through one node (alone, or in a batch with another
// member), and through another, at once, a
// write in Amsterdam that judges the member's score there: ZADD GT of a
// score a little above Amsterdam's (below Tokyo's), or ZINCRBY 1. In
// either order Redis ends with the member in Tokyo (GT after the move is
// refused), or at Tokyo's score plus 1 when the increment came second, and
// every node must read that. The handoff used to take a copy written in
// Amsterdam between its read and its delete there for the later write and
// drop its own: the member stayed in Amsterdam, the acknowledged move lost,
// in 41 and 24 of 400 rounds of two runs with single-member moves, and 86
// of 400 with batches (router/arrivals.go, reassert).
func TestClusterMoveWhileJudgedInPlace(t *testing.T) {
	tc := startCluster(t, 3, "--fanout-timeout", "5000")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, b, c := tc.nodes["a"].c, tc.nodes["b"].c, tc.nodes["c"].c
	ams, tok := [2]float64{4.9, 52.37}, [2]float64{139.69, 35.68}
	score := func(m string, p [2]float64) float64 {
		if err := c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: m, Longitude: p[0], Latitude: p[1]}).Err(); err != nil {
			t.Fatal(err)
		}
		s, err := c.ZScore(ctx, "k", m).Result()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sTok := score("tokyo", tok)
	const rounds = 400
	wrong := 0
	for i := range rounds {
		m := fmt.Sprint("m:", i)
		sAms := score(m, ams)
		judge := []any{"ZADD", "k", "GT", "CH", sAms + 5, m}
		want := map[float64]bool{sTok: true} // either order
		if i%2 == 1 {
			judge = []any{"ZINCRBY", "k", 1, m}
			want[sTok+1] = true // the increment second
		}
		var moveErr, judgeErr error
		var judged any
		// The second write a few tens of microseconds after the first:
		// it must read Amsterdam's copy and land before the move's delete.
		move := []any{"GEOADD", "k", tok[0], tok[1], m}
		if i%4 >= 2 {
			move = append(move, 5.0, 50.0, "other:"+m) // a batch (router/remote_batch.go)
		}
		atOnceStep(i, 30*time.Microsecond, func() {
			moveErr = a.Do(ctx, move...).Err()
		}, func() {
			judged, judgeErr = b.Do(ctx, judge...).Result()
		})
		if moveErr != nil || judgeErr != nil {
			if !strings.HasPrefix(fmt.Sprint(judgeErr), "TRYAGAIN") || moveErr != nil {
				t.Errorf("%s: GEOADD %v, %v %v", m, moveErr, judge[0], judgeErr)
			}
			continue
		}
		got := map[string]float64{}
		for _, id := range []string{"a", "b", "c"} {
			s, err := tc.nodes[id].c.ZScore(ctx, "k", m).Result()
			if err != nil {
				t.Fatalf("%s: ZSCORE through %s: %v", m, id, err)
			}
			got[id] = s
		}
		ok := want[got["a"]] && got["a"] == got["b"] && got["b"] == got["c"]
		if s, isIncr := judged.(string); ok && isIncr {
			// The increment's answer says which order it took.
			sum, _ := strconv.ParseFloat(s, 64)
			ok = sum == sAms+1 && got["a"] == sTok || sum == sTok+1 && got["a"] == sTok+1
		}
		if !ok {
			if wrong++; wrong <= 5 {
				t.Errorf("%s in Amsterdam (%v), Tokyo is %v: %v through a, %v through b answered %v; then ZSCORE through a, b, c: %v",
					m, sAms, sTok, move, judge, judged, got)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d members ended unlike any order of the two commands", wrong, rounds)
	}
}
