package snapshot

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc64"
	"math"
	"os"
	"path/filepath"
	"time"
)

// Writer streams a snapshot into a temporary file next to its final
// path; only Commit makes it visible, so a crash at any point leaves the
// previous snapshot in place.
type Writer struct {
	path    string
	tmp     *os.File // nil once committed or aborted
	tmpName string   // kept for error texts after tmp is gone
	buf     *bufio.Writer
	crc     hash.Hash64
	n       int64 // bytes written so far
	err     error // sticky: the first failure ends the write

	inDB    bool
	inZset  bool
	scratch [binary.MaxVarintLen64 + 8]byte
}

// TempPattern is the name pattern of a snapshot's temporary file, next to
// the snapshot itself; a crash can leave one behind (see RemoveTemps).
func TempPattern(path string) string { return filepath.Base(path) + ".tmp-*" }

// Create starts a snapshot that Commit will move to path.
func Create(path string, created time.Time) (*Writer, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), TempPattern(path))
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: create temporary file: %w", path, err)
	}
	// Locked for as long as it is written: how another process sharing
	// the directory tells a live write from a crashed one's leftover.
	if err := lockFile(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("snapshot %s: lock temporary file: %w", path, err)
	}
	w := &Writer{path: path, tmp: tmp, tmpName: tmp.Name(), buf: bufio.NewWriterSize(tmp, 1<<20), crc: crc64.New(crcTable)}
	var h [headerLen]byte
	copy(h[:], magic)
	binary.BigEndian.PutUint32(h[len(magic):], Version)
	binary.BigEndian.PutUint64(h[len(magic)+4:], uint64(created.UnixMilli()))
	w.write(h[:])
	if w.err != nil {
		w.Abort()
		return nil, w.err
	}
	return w, nil
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.buf.Write(p); err != nil {
		w.err = fmt.Errorf("snapshot %s: write %s: %w", w.path, w.tmpName, err)
		return
	}
	w.crc.Write(p)
	w.n += int64(len(p))
}

func (w *Writer) tag(t byte) { w.scratch[0] = t; w.write(w.scratch[:1]) }

func (w *Writer) uvarint(v uint64) { w.write(binary.AppendUvarint(w.scratch[:0], v)) }

func (w *Writer) varint(v int64) { w.write(binary.AppendVarint(w.scratch[:0], v)) }

func (w *Writer) bytes(s string) {
	w.uvarint(uint64(len(s)))
	if w.err == nil {
		if _, err := w.buf.WriteString(s); err != nil {
			w.err = fmt.Errorf("snapshot %s: write %s: %w", w.path, w.tmpName, err)
			return
		}
		w.crc.Write([]byte(s))
		w.n += int64(len(s))
	}
}

func (w *Writer) check(ok bool, what string) bool {
	if w.err == nil && !ok {
		w.err = fmt.Errorf("snapshot %s: %s", w.path, what)
	}
	return w.err == nil
}

// DB starts the records of one database.
func (w *Writer) DB(n int) error {
	if w.check(n >= 0, "negative database") {
		w.tag(tagDB)
		w.uvarint(uint64(n))
		w.inDB, w.inZset = true, false
	}
	return w.err
}

// String writes a string key; expireMS is its unix-ms expiry, 0 for none.
func (w *Writer) String(key string, value []byte, expireMS int64) error {
	if w.check(w.inDB, "string before any database") && w.check(len(key) <= maxString && len(value) <= maxString, "string too long") {
		w.tag(tagString)
		w.bytes(key)
		w.bytes(string(value))
		w.varint(expireMS)
		w.inZset = false
	}
	return w.err
}

// Zset starts a geo key; its members follow with Member.
func (w *Writer) Zset(key string, expireMS int64) error {
	if w.check(w.inDB, "geo key before any database") && w.check(len(key) <= maxString, "key too long") {
		w.tag(tagZset)
		w.bytes(key)
		w.varint(expireMS)
		w.inZset = true
	}
	return w.err
}

// Member writes one member of the geo key Zset started.
func (w *Writer) Member(name string, score float64, stamp int64) error {
	if w.check(w.inZset, "member outside a geo key") && w.check(len(name) <= maxString, "member too long") {
		w.tag(tagMember)
		w.bytes(name)
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], math.Float64bits(score))
		w.write(b[:])
		w.varint(stamp)
	}
	return w.err
}

// PositionTTL writes a per-key position TTL, which outlives its key.
func (w *Writer) PositionTTL(key string, ttl time.Duration) error {
	if w.check(w.inDB, "position TTL before any database") && w.check(len(key) <= maxString, "key too long") {
		w.tag(tagPosTTL)
		w.bytes(key)
		w.varint(int64(ttl))
		w.inZset = false
	}
	return w.err
}

// Size returns the bytes written so far.
func (w *Writer) Size() int64 { return w.n }

// Commit ends the snapshot and makes it durable and visible at its path:
// trailer, flush, fsync, rename over the old snapshot, fsync of the
// directory so the rename itself survives a power cut.
func (w *Writer) Commit() error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	var t [trailerLen]byte
	t[0] = tagTrailer
	binary.BigEndian.PutUint64(t[1:], uint64(w.n+trailerLen))
	w.write(t[:9])
	binary.BigEndian.PutUint64(t[9:], w.crc.Sum64())
	if w.err == nil {
		if _, err := w.buf.Write(t[9:]); err != nil {
			w.err = err
		}
	}
	fail := func(step string, err error) error {
		w.Abort()
		w.err = fmt.Errorf("snapshot %s: %s %s: %w", w.path, step, w.tmpName, err)
		return w.err
	}
	if w.err != nil {
		return fail("write", w.err)
	}
	if err := w.buf.Flush(); err != nil {
		return fail("write", err)
	}
	if err := w.tmp.Sync(); err != nil {
		return fail("fsync", err)
	}
	// Renamed before it is closed, so the lock covers the file until it
	// has its final name and no cleaner can take it for a leftover.
	if err := os.Rename(w.tmpName, w.path); err != nil {
		return fail("rename", err)
	}
	err := w.tmp.Close()
	w.tmp = nil
	if err != nil {
		return fmt.Errorf("snapshot %s: close: %w", w.path, err)
	}
	if err := syncDir(filepath.Dir(w.path)); err != nil {
		return fmt.Errorf("snapshot %s: fsync directory: %w", w.path, err)
	}
	w.n += 8
	return nil
}

// Abort drops the temporary file; the previous snapshot stays.
func (w *Writer) Abort() {
	if w.tmp == nil {
		return
	}
	// Removed before it is closed (which drops the lock), so a cleaner
	// never sees it unlocked.
	os.Remove(w.tmpName)
	w.tmp.Close()
	w.tmp = nil
	if w.err == nil {
		w.err = errors.New("snapshot aborted")
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// RemoveTemps deletes temporary files a crashed write left next to path
// and returns their names. A file still being written, by this process or
// another one sharing the directory, holds a lock and is left alone.
func RemoveTemps(path string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(filepath.Dir(path), TempPattern(path)))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, n := range names {
		if removeIfStale(n) {
			removed = append(removed, n)
		}
	}
	return removed, nil
}

// removeIfStale removes a temporary file nobody holds the lock of. The
// lock is kept while removing, so a writer cannot start on the name meanwhile.
func removeIfStale(name string) bool {
	f, err := os.OpenFile(name, os.O_RDONLY|syscallNoFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || tryLock(f) != nil {
		return false
	}
	return os.Remove(name) == nil
}
