package geo

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// ownHash is the arithmetic Hash used before it moved to
// github.com/mmcloughlin/geohash: the cell centre encoded with the
// standard ranges at 26 steps, ten 5-bit groups from bit 51 down, then '0'.
func ownHash(score float64) string {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	lon, lat := Decode(score)
	bits := encodeBits(lonRange, coordRange{-90, 90}, lon, lat, Step)
	var b []byte
	for i := range 10 {
		b = append(b, alphabet[(bits>>(52-uint(i+1)*5))&0x1f])
	}
	return string(append(b, '0'))
}

// hashScores are 100,000 random scores and every edge cell: the corners
// and sides of the score space and the cells on either side of the
// equator and the prime meridian.
func hashScores() []float64 {
	rng := rand.New(rand.NewPCG(11, 13))
	var out []float64
	for range 100_000 {
		out = append(out, float64(rng.Uint64N(1<<52)))
	}
	const last, mid = 1<<Step - 1, 1 << (Step - 1)
	edges := []uint32{0, 1, mid - 1, mid, mid + 1, last - 1, last}
	for _, la := range edges {
		for _, lo := range edges {
			out = append(out, float64(interleave(la, lo)))
		}
	}
	return out
}

func TestHashLibrary(t *testing.T) {
	scores := hashScores()
	for _, s := range scores {
		if got, want := Hash(s), ownHash(s); got != want {
			t.Fatalf("score %v: library %q, own arithmetic %q", s, got, want)
		}
	}
	// The same scores through redis-server's GEOHASH, 1,000 a command.
	rc := startRedis(t)
	for i := 0; i < len(scores); i += 1000 {
		batch := scores[i:min(i+1000, len(scores))]
		zadd := []string{"ZADD", "h"}
		geohash := []string{"GEOHASH", "h"}
		for j, s := range batch {
			m := fmt.Sprint(i + j)
			zadd = append(zadd, strconv.FormatFloat(s, 'f', -1, 64), m)
			geohash = append(geohash, m)
		}
		replies, err := rc.pipeline([][]string{{"DEL", "h"}, zadd, geohash})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := replies[2].([]any)
		if !ok || len(got) != len(batch) {
			t.Fatalf("GEOHASH replied %v", replies[2])
		}
		for j, s := range batch {
			if want := Hash(s); got[j] != want {
				t.Fatalf("score %v: redis-server %q, Hash %q", s, got[j], want)
			}
		}
	}
}
