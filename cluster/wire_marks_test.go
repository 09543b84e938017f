package cluster

import (
	"encoding/binary"
	"slices"
	"testing"

	"geoshard/router"
)

// TestMarksWire: marks go through the word and back unchanged, and every
// cut-short or overlong word is refused, never read past its end.
func TestMarksWire(t *testing.T) {
	for _, c := range []struct {
		name  string
		marks []router.Arrival
	}{
		{"none", nil},
		{"one", []router.Arrival{{Member: "driver:1", From: 3, Stamp: 1 << 60}}},
		{"several", []router.Arrival{{Member: "", From: 0, Stamp: 1}, {Member: string(make([]byte, 300)), From: 65535, Stamp: -1},
			{Member: "é", From: 128, Stamp: 0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			word := appendMarksWire(nil, c.marks)
			got, err := decodeMarksWire(string(word))
			if err != nil || !slices.Equal(got, c.marks) && len(c.marks) > 0 {
				t.Fatalf("decoded %v (%v), sent %v", got, err, c.marks)
			}
			for n := 1; n < len(word); n++ {
				if ms, err := decodeMarksWire(string(word[:n])); err == nil && len(ms) == len(c.marks) {
					t.Errorf("word cut to %d of %d bytes read as whole: %v", n, len(word), ms)
				}
			}
		})
	}
	bigShard := append(binary.AppendUvarint(nil, 1<<17), make([]byte, 9)...) // shard, empty name, stamp
	if _, err := decodeMarksWire(string(bigShard)); err == nil {
		t.Error("a mark of shard 1<<17 was accepted")
	}
	many := make([]router.Arrival, maxReplyMarks+1)
	if _, err := decodeMarksWire(string(appendMarksWire(nil, many))); err == nil {
		t.Errorf("%d marks accepted, more than maxReplyMarks", len(many))
	}
}
