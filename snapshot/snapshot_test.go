package snapshot

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sample is a snapshot's worth of records in every kind, with edge values.
var sample = []Record{
	{Kind: KindDB, DB: 0},
	{Kind: KindString, Key: "s", Value: []byte("v"), ExpireMS: 0},
	{Kind: KindString, Key: "", Value: []byte{}, ExpireMS: 1795976897123},
	{Kind: KindString, Key: "bin\x00\xff", Value: []byte("\r\n\x00"), ExpireMS: -1},
	{Kind: KindZset, Key: "drivers", ExpireMS: 0},
	{Kind: KindMember, Member: "a", Score: 3471579339700058, Stamp: 1795976897123456789},
	{Kind: KindMember, Member: "", Score: math.Copysign(0, -1), Stamp: 0},
	{Kind: KindMember, Member: strings.Repeat("m", 300), Score: math.Inf(-1), Stamp: -5},
	{Kind: KindPosTTL, Key: "drivers", TTL: 30 * time.Second},
	{Kind: KindDB, DB: 15},
	{Kind: KindZset, Key: "z", ExpireMS: 42},
	{Kind: KindMember, Member: "x", Score: 1.5, Stamp: 1},
	{Kind: KindPosTTL, Key: "gone", TTL: 0},
}

func write(t *testing.T, path string, recs []Record) {
	t.Helper()
	w, err := Create(path, time.UnixMilli(1795976897000))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		switch r.Kind {
		case KindDB:
			err = w.DB(r.DB)
		case KindString:
			err = w.String(r.Key, r.Value, r.ExpireMS)
		case KindZset:
			err = w.Zset(r.Key, r.ExpireMS)
		case KindMember:
			err = w.Member(r.Member, r.Score, r.Stamp)
		case KindPosTTL:
			err = w.PositionTTL(r.Key, r.TTL)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func readAll(path string) ([]Record, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Record
	for i := 0; i < 1_000_000; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
	return out, errors.New("too many records")
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump.gsnap")
	write(t, path, sample)
	got, err := readAll(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sample) {
		t.Fatalf("read %d records, wrote %d", len(got), len(sample))
	}
	for i := range sample {
		want := sample[i]
		if want.Kind == KindString && want.Value == nil {
			want.Value = []byte{}
		}
		g := got[i]
		// -0 and NaN-free scores compare by bits.
		if math.Float64bits(g.Score) != math.Float64bits(want.Score) {
			t.Errorf("record %d: score %v, want %v", i, g.Score, want.Score)
		}
		g.Score, want.Score = 0, 0
		if !reflect.DeepEqual(g, want) {
			t.Errorf("record %d: got %+v, want %+v", i, g, want)
		}
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got := r.Created().UnixMilli(); got != 1795976897000 {
		t.Errorf("created %d", got)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestDamaged cuts the file at every length and flips every byte: each
// must be refused as truncated or corrupt, naming the file, never read.
func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	write(t, path, sample)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.gsnap")
	check := func(what string, data []byte, kinds ...error) {
		t.Helper()
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readAll(bad)
		if err == nil {
			t.Fatalf("%s: accepted", what)
		}
		if !strings.Contains(err.Error(), bad) {
			t.Fatalf("%s: error does not name the file: %v", what, err)
		}
		for _, k := range kinds {
			if errors.Is(err, k) {
				return
			}
		}
		t.Fatalf("%s: %v, want one of %v", what, err, kinds)
	}
	for n := 0; n < len(good); n++ {
		check("cut at "+strconv.Itoa(n), good[:n], ErrTruncated)
	}
	for i := range good {
		flipped := append([]byte(nil), good...)
		flipped[i] ^= 0x10
		kinds := []error{ErrCorrupt}
		switch {
		case i >= len(magic) && i < len(magic)+4:
			kinds = []error{ErrVersion}
		case i >= len(good)-trailerLen && i < len(good)-8:
			kinds = []error{ErrTruncated} // the end record itself
		}
		check("flip at "+strconv.Itoa(i), flipped, kinds...)
	}
	check("empty", nil, ErrTruncated)
	check("not a snapshot", []byte("REDIS0009 and more bytes than a header"), ErrCorrupt)
	check("padded", append(append([]byte(nil), good...), 0), ErrTruncated)
}

// TestAbortKeepsPrevious: a write that never commits leaves the old
// snapshot untouched and no temporary file.
func TestAbortKeepsPrevious(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	write(t, path, sample)
	before, _ := os.ReadFile(path)
	w, err := Create(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.DB(0)
	w.String("new", []byte("x"), 0)
	w.Abort()
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("aborted write changed the snapshot")
	}
	if left, _ := filepath.Glob(filepath.Join(dir, TempPattern(path))); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	w, err := Create(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.DB(0)
	// As after kill -9: the temporary file stays, unfinished, unlocked.
	w.buf.Flush()
	w.tmp.Close()
	live, err := Create(path, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	other := filepath.Join(dir, "other.gsnap.tmp-1")
	os.WriteFile(other, nil, 0o644)
	removed, err := RemoveTemps(path)
	if err != nil || len(removed) != 1 || removed[0] != w.tmpName {
		t.Fatalf("removed %v, %v; want %s", removed, err, w.tmpName)
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("removed another snapshot's file: %v", err)
	}
	// The write in progress keeps its file and still commits.
	live.DB(0)
	if err := live.Commit(); err != nil {
		t.Fatalf("live write after RemoveTemps: %v", err)
	}
}

// TestCommitFails: each way the last steps can fail is an error naming
// the file, never a panic, and leaves no temporary file.
func TestCommitFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir, path string)
	}{
		{"rename onto a directory", func(t *testing.T, dir, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(path, "x"), nil, 0o644) // not empty: rename cannot replace it
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "dump.gsnap")
			tc.setup(t, dir, path)
			w, err := Create(path, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			w.DB(0)
			w.String("k", []byte("v"), 0)
			err = w.Commit()
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("Commit: %v, want an error naming %s", err, path)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, TempPattern(path))); len(left) != 0 {
				t.Fatalf("temporary files left: %v", left)
			}
			w.Abort() // after a failed Commit: harmless
		})
	}
}

func TestWriterOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(w *Writer) error
	}{
		{"member first", func(w *Writer) error { w.DB(0); return w.Member("m", 1, 1) }},
		{"string first", func(w *Writer) error { return w.String("k", nil, 0) }},
		{"member after string", func(w *Writer) error {
			w.DB(0)
			w.Zset("z", 0)
			w.String("k", nil, 0)
			return w.Member("m", 1, 1)
		}},
		{"negative db", func(w *Writer) error { return w.DB(-1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dump.gsnap")
			w, err := Create(path, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.do(w); err == nil {
				t.Fatal("accepted")
			}
			if err := w.Commit(); err == nil {
				t.Fatal("committed after an error")
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("snapshot exists after a failed write: %v", err)
			}
		})
	}
}

// FuzzOpen: any bytes are refused or read, never a panic or a hang.
func FuzzOpen(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.gsnap")
	w, _ := Create(path, time.Now())
	w.DB(0)
	w.Zset("z", 0)
	w.Member("m", 1, 1)
	w.Commit()
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "f.gsnap")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readAll(p)
	})
}
