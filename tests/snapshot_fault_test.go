package tests

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startGeoshardLimited starts geoshard under a file-size limit (ulimit -f,
// in 512-byte blocks), which is how a full disk looks to a writer: the
// write that passes it fails with EFBIG.
func startGeoshardLimited(t *testing.T, blocks int, directives ...string) *serverProc {
	t.Helper()
	race := raceEnabled && os.Getenv("GEOSHARD_E2E_RACE") != "0"
	bin := geoshardBinary(t, race)
	return startServer(t, "geoshard", "/bin/sh", func(port int) []string {
		return append([]string{"-c", `ulimit -f "$0" && exec "$@"`, strconv.Itoa(blocks), bin,
			"--port", strconv.Itoa(port), "--bind", "127.0.0.1"}, directives...)
	})
}

// addMany writes n members into key in one GEOADD.
func addMany(t *testing.T, rc *rawConn, key string, n int) {
	t.Helper()
	args := []string{"GEOADD", key}
	for i := range n {
		args = append(args, strconv.FormatFloat(-170+float64(i%3400)/10, 'f', 4, 64),
			strconv.FormatFloat(-80+float64(i%1600)/10, 'f', 4, 64), "member:"+strconv.Itoa(i))
	}
	if r := string(rc.mustDo(t, args...)); r != ":"+strconv.Itoa(n)+"\r\n" {
		t.Fatalf("GEOADD of %d: %q", n, r)
	}
}

// TestSnapshotSaveFails: a save that cannot be written (the rename hits
// a directory, the disk is full) is an error the server survives, as in
// Redis: BGSAVE logs it and sets rdb_last_bgsave_status:err, SAVE answers
// an error, and the server keeps serving.
func TestSnapshotSaveFails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(t *testing.T, dir string) *serverProc
	}{
		{"dbfilename is a directory", func(t *testing.T, dir string) *serverProc {
			p := startSnap(t, "geoshard", dir, "--enable-protected-configs", "yes")
			if err := os.MkdirAll(filepath.Join(dir, "isdir.gsnap", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
			rc := dialRaw(t, p)
			if r := string(rc.mustDo(t, "CONFIG", "SET", "dbfilename", "isdir.gsnap")); r != "+OK\r\n" {
				t.Fatalf("CONFIG SET dbfilename: %q", r)
			}
			return p
		}},
		{"disk full at a scheduled save", func(t *testing.T, dir string) *serverProc {
			return startGeoshardLimited(t, 64, "--dir", dir, "--save", "1 1")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := tc.start(t, dir)
			rc := dialRaw(t, p)
			addMany(t, rc, "fleet", 5000) // about 100 KB of snapshot: past the 32 KB limit
			if r := string(rc.mustDo(t, "BGSAVE")); r != "+Background saving started\r\n" && !strings.Contains(r, "already in progress") {
				t.Fatalf("BGSAVE: %q", r)
			}
			waitFor(t, 15*time.Second, "the failed save to be reported", func() bool {
				return infoField(t, rc, "persistence", "rdb_last_bgsave_status") == "err" &&
					infoField(t, rc, "persistence", "rdb_bgsave_in_progress") == "0"
			})
			if !p.waitLog("failed", 5*time.Second) {
				t.Errorf("no failure in the log:\n%s", p.out.String())
			}
			if r := string(rc.mustDo(t, "SAVE")); !strings.HasPrefix(r, "-ERR") {
				t.Errorf("SAVE that cannot write: %q, want an error", r)
			}
			if r := string(rc.mustDo(t, "ZCARD", "fleet")); r != ":5000\r\n" {
				t.Errorf("ZCARD after the failed saves: %q", r)
			}
			if left := tempFiles(dir); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if !p.alive() {
				t.Fatalf("server died:\n%s", p.out.String())
			}
		})
	}
}

// TestSnapshotSecondInstance: a second server started by mistake on the
// same directory (and port) fails to bind and leaves the first one's save
// in progress alone; that save then completes.
func TestSnapshotSecondInstance(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	p := startSnap(t, "geoshard", dir, "--rdb-key-save-delay", "300000")
	rc := dialRaw(t, p)
	for i := range 5 {
		rc.mustDo(t, "SET", "k"+strconv.Itoa(i), "v")
	}
	if r := string(rc.mustDo(t, "BGSAVE")); r != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", r)
	}
	waitFor(t, 5*time.Second, "the temporary file", func() bool { return len(tempFiles(dir)) == 1 })
	temp := tempFiles(dir)[0]
	race := raceEnabled && os.Getenv("GEOSHARD_E2E_RACE") != "0"
	second, err := spawn("second", geoshardBinary(t, race), p.port,
		[]string{"--port", strconv.Itoa(p.port), "--bind", "127.0.0.1", "--dir", dir})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-second.exited:
	case <-time.After(20 * time.Second):
		second.stop()
		t.Fatal("the second instance did not give up on the taken port")
	}
	second.stop()
	if _, err := os.Stat(temp); err != nil {
		t.Fatalf("the second instance removed the live save's file: %v\n%s", err, second.out.String())
	}
	waitFor(t, 15*time.Second, "the save to finish", func() bool {
		return infoField(t, rc, "persistence", "rdb_bgsave_in_progress") == "0"
	})
	if got := infoField(t, rc, "persistence", "rdb_last_bgsave_status"); got != "ok" {
		t.Fatalf("rdb_last_bgsave_status: %s", got)
	}
	mustRead(t, path)
}
