package tests

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpsRegionsHostileFiles: CONFIG SET regions refuses, quickly and
// with one text that says nothing about the file, whatever is not a
// readable region map: a device that never ends, a FIFO with no writer
// (which used to freeze every command and SIGTERM), a directory, a
// missing file, a secret that is not JSON, a file over the 64 MB bound.
// The server keeps serving and its memory does not grow by the file.
func TestOpsRegionsHostileFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("SECRET=hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge.geojson")
	if err := os.WriteFile(huge, []byte(`{"type":"FeatureCollection"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 65<<20); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	gs := startGeoshard(t, "geoshard")
	rc := dialRaw(t, gs)
	rc.mustDo(t, "GEOADD", "k", "13.4", "52.5", "a")
	for _, path := range []string{"/dev/zero", fifo, dir, filepath.Join(dir, "missing"), secret, huge} {
		start := time.Now()
		got := string(rc.mustDo(t, "CONFIG", "SET", "regions", path))
		want := "-ERR CONFIG SET failed (possibly related to argument 'regions') - region map " + path +
			": not a readable region map file (the server log says why)\r\n"
		if got != want {
			t.Errorf("CONFIG SET regions %s:\n got %q\nwant %q", path, got, want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("CONFIG SET regions %s took %v", path, d)
		}
		if r := string(rc.mustDo(t, "GEOPOS", "k", "a")); !strings.HasPrefix(r, "*1\r\n*2\r\n") {
			t.Errorf("after CONFIG SET regions %s: GEOPOS %q", path, r)
		}
	}
	if rss := infoField(t, rc, "memory", "used_memory"); len(rss) > 9 { // >= 1 GB
		t.Errorf("used_memory %s after the refused files", rss)
	}
}
