package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSnapshotKillDuringWrite: kill -9 in the middle of a background save
// leaves the previous snapshot whole; the restart serves it and clears
// the unfinished file.
func TestSnapshotKillDuringWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	p := startSnap(t, "geoshard", dir)
	rc := dialRaw(t, p)
	fillSnap(t, rc, 300)
	rc.mustDo(t, "SAVE")
	saved := mustRead(t, path)
	before := readAll(t, rc)

	// Change everything, then save slowly: 200 more keys at 20 ms each
	// make a write of 4 s, and the process dies 1 s into it.
	rc.mustDo(t, "FLUSHALL")
	for i := range 200 {
		rc.mustDo(t, "GEOADD", "k"+string(rune('a'+i%26))+strings.Repeat("z", i/26), "13.4", "52.5", "m")
	}
	rc.mustDo(t, "CONFIG", "SET", "rdb-key-save-delay", "20000")
	if r := string(rc.mustDo(t, "BGSAVE")); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitFor(t, 5*time.Second, "the unfinished snapshot file", func() bool { return len(tempFiles(dir)) == 1 })
	time.Sleep(time.Second)
	if got := infoField(t, rc, "persistence", "rdb_bgsave_in_progress"); got != "1" {
		t.Fatalf("the save ended before the kill (rdb_bgsave_in_progress %s)", got)
	}
	p.stop() // SIGKILL
	if string(mustRead(t, path)) != string(saved) {
		t.Fatal("the snapshot changed under a save that never finished")
	}
	if len(tempFiles(dir)) != 1 {
		t.Fatalf("want the killed save's temporary file, have %v", tempFiles(dir))
	}

	q := startSnap(t, "geoshard-restarted", dir)
	sameReads(t, before, readAll(t, dialRaw(t, q)))
	if left := tempFiles(dir); len(left) != 0 {
		t.Errorf("unfinished files left after the restart: %v", left)
	}
	expectLog(t, q, "removed unfinished snapshot files")
}

// TestSnapshotDamaged: a snapshot with a flipped byte, or cut short, is
// refused at start with an error naming the file and the problem; with
// --snapshot-corrupt ignore the server starts empty and keeps the file
// aside.
func TestSnapshotDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	p := startSnap(t, "geoshard", dir)
	rc := dialRaw(t, p)
	fillSnap(t, rc, 200)
	rc.mustDo(t, "SAVE")
	p.stop()
	good := mustRead(t, path)

	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x04
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped byte", flipped, "corrupt: checksum mismatch"},
		{"truncated", good[:len(good)*2/3], "truncated: no end record"},
		{"empty", nil, "truncated"},
		{"not a snapshot", []byte("REDIS0009\xfa\x09redis-ver\x067.0.15 and so on"), "corrupt at byte 0: not a geoshard snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out := runGeoshard(t, "--dir", dir)
			if code == 0 || !strings.Contains(out, "snapshot "+path+": "+tc.want) || !strings.Contains(out, "--snapshot-corrupt ignore") {
				t.Fatalf("exit %d, want a refusal naming %s and %q:\n%s", code, path, tc.want, out)
			}
			if string(mustRead(t, path)) != string(tc.data) {
				t.Fatal("a refused start changed the snapshot")
			}

			q := startSnap(t, "geoshard-ignore", dir, "--snapshot-corrupt", "ignore")
			rc := dialRaw(t, q)
			if r := string(rc.mustDo(t, "DBSIZE")); r != ":0\r\n" {
				t.Fatalf("DBSIZE after ignoring a bad snapshot: %q", r)
			}
			aside, _ := filepath.Glob(path + ".bad-*")
			if len(aside) != 1 || string(mustRead(t, aside[0])) != string(tc.data) {
				t.Fatalf("bad snapshot not kept aside: %v", aside)
			}
			os.Remove(aside[0])
			expectLog(t, q, "snapshot unreadable, starting empty")
			q.stop()
		})
	}
}
