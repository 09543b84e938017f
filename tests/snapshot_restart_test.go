package tests

import (
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSnapshotRestart: each way of writing a snapshot, then a restart on
// it, gives the same GEOSEARCH, GEOPOS, ZRANGE... replies, byte for byte,
// and TTLs still counting down to the same instant.
func TestSnapshotRestart(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra []string
		stop  func(t *testing.T, p *serverProc, rc *rawConn)
	}{
		{"SAVE then kill -9", nil, func(t *testing.T, p *serverProc, rc *rawConn) {
			if r := rc.mustDo(t, "SAVE"); string(r) != "+OK\r\n" {
				t.Fatalf("SAVE: %q", r)
			}
			p.stop() // SIGKILL: nothing but the SAVE's file
		}},
		{"BGSAVE then kill -9", nil, func(t *testing.T, p *serverProc, rc *rawConn) {
			if r := rc.mustDo(t, "BGSAVE"); string(r) != "+Background saving started\r\n" {
				t.Fatalf("BGSAVE: %q", r)
			}
			waitFor(t, 20*time.Second, "BGSAVE to end", func() bool {
				return infoField(t, rc, "persistence", "rdb_bgsave_in_progress") == "0"
			})
			p.stop()
		}},
		{"SHUTDOWN SAVE", nil, func(t *testing.T, p *serverProc, rc *rawConn) {
			rc.send([][]string{{"SHUTDOWN", "SAVE"}})
			p.waitExit(t, 20*time.Second)
		}},
		{"SIGTERM with a save schedule", []string{"--save", "3600", "1"}, func(t *testing.T, p *serverProc, rc *rawConn) {
			p.signalAndWait(t, syscall.SIGTERM, 20*time.Second)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := startSnap(t, "geoshard", dir, tc.extra...)
			rc := dialRaw(t, p)
			fillSnap(t, rc, 1500)
			before := readAll(t, rc)
			pttl, _ := strconv.Atoi(strings.Trim(string(rc.mustDo(t, "PTTL", "ttl")), ":\r\n"))
			tc.stop(t, p, rc)

			q := startSnap(t, "geoshard-restarted", dir)
			rc2 := dialRaw(t, q)
			sameReads(t, before, readAll(t, rc2))
			after, _ := strconv.Atoi(strings.Trim(string(rc2.mustDo(t, "PTTL", "ttl")), ":\r\n"))
			if after <= 0 || after > pttl {
				t.Errorf("PTTL of ttl: %d before, %d after the restart", pttl, after)
			}
			if got := infoField(t, rc2, "persistence", "rdb_last_load_keys_loaded"); got != "10" {
				t.Errorf("rdb_last_load_keys_loaded: %s, want 10", got)
			}
			expectLog(t, q, "snapshot loaded")
		})
	}
}

// TestSnapshotPositionTimestamps: positions keep their write times, so a
// position TTL runs from the last real ping, not from the restart.
func TestSnapshotPositionTimestamps(t *testing.T) {
	dir := t.TempDir()
	// A 10 s TTL and 3 s between the writes: the save, the kill and the
	// restart of a -race build must take less than the 7 s old has left
	// (with a 5 s TTL and 2 s, 3 s were left: a start on a loaded 2-core
	// machine may take seconds), and the reads after old's expiry must
	// come within the 3 s before new's.
	p := startSnap(t, "geoshard", dir, "--position-ttl", "10")
	rc := dialRaw(t, p)
	rc.mustDo(t, "GEOADD", "cars", "13.4", "52.5", "old")
	time.Sleep(3 * time.Second)
	rc.mustDo(t, "GEOADD", "cars", "13.5", "52.5", "new")
	rc.mustDo(t, "SAVE")
	p.stop()
	q := startSnap(t, "geoshard-restarted", dir, "--position-ttl", "10")
	rc2 := dialRaw(t, q)
	if r := string(rc2.mustDo(t, "ZCARD", "cars")); r != ":2\r\n" {
		t.Fatalf("ZCARD after restart: %q", r)
	}
	// old was written 3 s before new: it must expire first, by its own
	// write time, not the restart's.
	waitFor(t, 20*time.Second, "old position to expire", func() bool {
		return string(rc2.mustDo(t, "ZCARD", "cars")) == ":1\r\n"
	})
	if r := string(rc2.mustDo(t, "ZRANGE", "cars", "0", "-1")); r != "*1\r\n$3\r\nnew\r\n" {
		t.Fatalf("left after the first expiry: %q", r)
	}
}

// TestSnapshotSaveSchedule: "save 1 3" saves once 3 writes happened and a
// second passed, not before; CONFIG SET save "" stops it.
func TestSnapshotSaveSchedule(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "dump.gsnap")
	p := startSnap(t, "geoshard", dir, "--save", "1", "3")
	rc := dialRaw(t, p)
	if r := string(rc.mustDo(t, "CONFIG", "GET", "save")); r != "*2\r\n$4\r\nsave\r\n$3\r\n1 3\r\n" {
		t.Fatalf("CONFIG GET save: %q", r)
	}
	start := string(rc.mustDo(t, "LASTSAVE"))
	rc.mustDo(t, "SET", "a", "1")
	rc.mustDo(t, "GEOADD", "cars", "13.4", "52.5", "x")
	time.Sleep(1500 * time.Millisecond)
	if got := infoField(t, rc, "persistence", "rdb_changes_since_last_save"); got != "2" {
		t.Fatalf("rdb_changes_since_last_save: %s, want 2", got)
	}
	if got := infoField(t, rc, "persistence", "rdb_saves"); got != "0" {
		t.Fatalf("saved after 2 of 3 changes (rdb_saves %s)", got)
	}
	rc.mustDo(t, "GEOADD", "cars", "13.5", "52.5", "y")
	waitFor(t, 10*time.Second, "the scheduled save", func() bool {
		return infoField(t, rc, "persistence", "rdb_saves") == "1"
	})
	if got := infoField(t, rc, "persistence", "rdb_changes_since_last_save"); got != "0" {
		t.Errorf("rdb_changes_since_last_save after the save: %s", got)
	}
	if got := infoField(t, rc, "persistence", "rdb_last_bgsave_status"); got != "ok" {
		t.Errorf("rdb_last_bgsave_status: %s", got)
	}
	if string(rc.mustDo(t, "LASTSAVE")) == start {
		t.Error("LASTSAVE did not move")
	}
	mustRead(t, path)

	rc.mustDo(t, "CONFIG", "SET", "save", "")
	for i := range 5 {
		rc.mustDo(t, "SET", "k"+strconv.Itoa(i), "v")
	}
	time.Sleep(1500 * time.Millisecond)
	if got := infoField(t, rc, "persistence", "rdb_saves"); got != "1" {
		t.Errorf("saved with the schedule off (rdb_saves %s)", got)
	}
}

// TestSnapshotShutdownCannotSave: SHUTDOWN fails as in Redis, and the
// server keeps serving, when its snapshot cannot be written.
func TestSnapshotShutdownCannotSave(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "gone")
	p := startSnap(t, "geoshard", dir, "--enable-protected-configs", "yes")
	rc := dialRaw(t, p)
	if err := mkdir(gone); err != nil {
		t.Fatal(err)
	}
	rc.mustDo(t, "CONFIG", "SET", "dir", gone)
	if err := rmdir(gone); err != nil {
		t.Fatal(err)
	}
	if r := string(rc.mustDo(t, "SHUTDOWN", "SAVE")); r != "-ERR Errors trying to SHUTDOWN. Check logs.\r\n" {
		t.Fatalf("SHUTDOWN SAVE into a removed directory: %q", r)
	}
	if r := string(rc.mustDo(t, "PING")); r != "+PONG\r\n" {
		t.Fatalf("PING after a failed SHUTDOWN: %q", r)
	}
	if r := string(rc.mustDo(t, "SAVE")); !strings.HasPrefix(r, "-ERR snapshot "+filepath.Join(gone, "dump.gsnap")) {
		t.Fatalf("SAVE into a removed directory: %q", r)
	}
}
