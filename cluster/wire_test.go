package cluster

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"geoshard/geo"
	"geoshard/shard"
)

func TestWireRoundTrip(t *testing.T) {
	hits := []shard.Hit{
		{Entry: shard.NewEntry("driver:1", geo.Encode(4.9, 52.37), 1764600000000000000), Dist: 123.456, Cell: 3},
		{Entry: shard.NewEntry("", 0, 1), Dist: 0, Cell: 0},
		{Entry: shard.NewEntry(strings.Repeat("é", 200), geo.Encode(-179.9, -85), math.MaxInt64), Dist: 2e7, Cell: 1 << 20},
	}
	got, err := decodeHitsWire(string(encodeHits(hits)))
	if err != nil || !reflect.DeepEqual(got, hits) {
		t.Fatalf("hits: %+v, %v", got, err)
	}
	es := []shard.Entry{hits[0].Entry, hits[2].Entry}
	if got, err := decodeEntriesWire(string(encodeEntries(es))); err != nil || !reflect.DeepEqual(got, es) {
		t.Fatalf("entries: %+v, %v", got, err)
	}
	if got, err := decodeHitsWire(""); err != nil || len(got) != 0 {
		t.Fatalf("no hits: %v, %v", got, err)
	}
	// Cut anywhere, the reply is refused rather than misread.
	b := string(encodeHits(hits))
	for n := 1; n < len(b); n++ {
		if hs, err := decodeHitsWire(b[:n]); err == nil && len(hs) != 1 && len(hs) != 2 {
			t.Fatalf("cut at %d: %d hits, no error", n, len(hs))
		}
	}
}
