package snapshot

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc64"
	"io"
	"math"
	"os"
	"time"
)

// Record is one entry of a snapshot; which fields mean something depends
// on Kind.
type Record struct {
	Kind     Kind
	DB       int           // KindDB
	Key      string        // KindString, KindZset, KindPosTTL
	Value    []byte        // KindString
	ExpireMS int64         // KindString, KindZset: unix ms, 0 for none
	Member   string        // KindMember: may share its bytes with other members
	Score    float64       // KindMember
	Stamp    int64         // KindMember: write time, unix ns
	TTL      time.Duration // KindPosTTL
}

// Reader streams the records of a snapshot whose trailer and checksum
// Open has already verified, so nothing is applied from a bad file.
type Reader struct {
	path    string
	f       *os.File
	crc     hash.Hash64 // of every byte read into buf so far
	buf     []byte      // file bytes read ahead; buf[pos] is at off
	text    string      // a copy of buf for member names, "" until needed
	pos     int
	off     int64 // of the next byte to parse
	end     int64 // where the trailer starts
	filled  int64 // of the byte after the last one read into buf
	stop    int64 // where the stored checksum starts: reads end there
	want    uint64
	created time.Time
	inDB    bool
	inZset  bool
}

// Open checks a snapshot whole (header, version, trailer, length,
// checksum) and returns a reader over its records.
func Open(path string) (*Reader, error) {
	// Non-blocking, so that a FIFO in the snapshot's place is refused
	// below instead of waiting for a writer for ever.
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	r, err := open(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func open(path string, f *os.File) (*Reader, error) {
	bad := func(kind error, off int64, format string, args ...any) error {
		return &Error{File: path, Offset: off, Kind: kind, Detail: fmt.Sprintf(format, args...)}
	}
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("snapshot %s: not a regular file (%s)", path, st.Mode().Type())
	}
	size := st.Size()
	var h [headerLen]byte
	if n, _ := io.ReadFull(f, h[:]); n < len(magic) || string(h[:len(magic)]) != magic {
		if n < len(magic) && string(h[:n]) == magic[:n] {
			return nil, bad(ErrTruncated, -1, "%d bytes, shorter than the header", size)
		}
		return nil, bad(ErrCorrupt, 0, "not a geoshard snapshot (bad magic)")
	}
	if size < int64(headerLen) {
		return nil, bad(ErrTruncated, -1, "%d bytes, shorter than the header", size)
	}
	if v := binary.BigEndian.Uint32(h[len(magic):]); v == 0 || v > Version {
		return nil, bad(ErrVersion, int64(len(magic)), "format version %d, this build reads 1 to %d", v, Version)
	}
	if size < int64(headerLen+trailerLen) {
		return nil, bad(ErrTruncated, -1, "%d bytes, too short to hold the end record", size)
	}
	var t [trailerLen]byte
	if _, err := f.ReadAt(t[:], size-trailerLen); err != nil {
		return nil, fmt.Errorf("snapshot %s: read trailer: %w", path, err)
	}
	if t[0] != tagTrailer || binary.BigEndian.Uint64(t[1:]) != uint64(size) {
		return nil, bad(ErrTruncated, -1, "no end record: the file stops at %d bytes, "+
			"probably cut short by a crash or a full disk", size)
	}
	// First pass: the checksum of everything but itself.
	crc := crc64.New(crcTable)
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	if _, err := io.CopyN(crc, bufio.NewReaderSize(f, 1<<20), size-8); err != nil {
		return nil, fmt.Errorf("snapshot %s: read: %w", path, err)
	}
	want := binary.BigEndian.Uint64(t[9:])
	if got := crc.Sum64(); got != want {
		return nil, bad(ErrCorrupt, -1, "checksum mismatch (stored crc64 %016x, computed %016x)", want, got)
	}
	if _, err := f.Seek(int64(headerLen), io.SeekStart); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	r := &Reader{
		path: path, f: f, crc: crc64.New(crcTable),
		off: int64(headerLen), end: size - trailerLen, want: want,
		filled: int64(headerLen), stop: size - 8,
		created: time.UnixMilli(int64(binary.BigEndian.Uint64(h[len(magic)+4:]))),
	}
	r.crc.Write(h[:])
	return r, nil
}

// Created returns when the snapshot was taken.
func (r *Reader) Created() time.Time { return r.created }

// Close releases the file.
func (r *Reader) Close() error { return r.f.Close() }

func (r *Reader) corrupt(off int64, format string, args ...any) error {
	return &Error{File: r.path, Offset: off, Kind: ErrCorrupt, Detail: fmt.Sprintf(format, args...)}
}

// Next returns the next record, or io.EOF after the last one. The second
// pass re-computes the checksum, so a file changed since Open is caught.
func (r *Reader) Next() (Record, error) {
	if r.off >= r.end {
		return Record{}, r.trailer()
	}
	start := r.off
	tag, err := r.byte()
	if err != nil {
		return Record{}, err
	}
	rec := Record{Kind: Kind(tag)}
	switch tag {
	case tagDB:
		var n uint64
		if n, err = r.uvarint(); err == nil && n > math.MaxInt32 {
			return Record{}, r.corrupt(start, "database %d", n)
		}
		rec.DB = int(n)
		r.inDB, r.inZset = true, false
	case tagString:
		if !r.inDB {
			return Record{}, r.corrupt(start, "string before any database")
		}
		if rec.Key, err = r.str(); err == nil {
			var v []byte
			if v, err = r.bytes(); err == nil {
				rec.Value = append([]byte{}, v...)
				rec.ExpireMS, err = r.varint()
			}
		}
		r.inZset = false
	case tagZset:
		if !r.inDB {
			return Record{}, r.corrupt(start, "geo key before any database")
		}
		if rec.Key, err = r.str(); err == nil {
			rec.ExpireMS, err = r.varint()
		}
		r.inZset = true
	case tagMember:
		if !r.inZset {
			return Record{}, r.corrupt(start, "member outside a geo key")
		}
		if rec.Member, err = r.member(); err == nil {
			var b []byte
			if b, err = r.take(8); err == nil {
				rec.Score = math.Float64frombits(binary.BigEndian.Uint64(b))
				rec.Stamp, err = r.varint()
			}
		}
	case tagPosTTL:
		if !r.inDB {
			return Record{}, r.corrupt(start, "position TTL before any database")
		}
		if rec.Key, err = r.str(); err == nil {
			var d int64
			d, err = r.varint()
			rec.TTL = time.Duration(d)
		}
		r.inZset = false
	default:
		return Record{}, r.corrupt(start, "unknown record tag 0x%02x", tag)
	}
	if err != nil {
		return Record{}, err
	}
	if r.off > r.end {
		return Record{}, r.corrupt(start, "a record runs into the end record")
	}
	return rec, nil
}

// trailer reads the end record once every record has been read: io.EOF
// when the whole file checks out.
func (r *Reader) trailer() error {
	if r.off > r.end {
		return r.corrupt(r.end, "a record runs into the end record")
	}
	// The end record's tag and length are checksummed too.
	if err := r.fill(len(r.buf) - r.pos + int(r.stop-r.filled)); err != nil {
		return fmt.Errorf("snapshot %s: read trailer: %w", r.path, err)
	}
	if r.crc.Sum64() != r.want {
		return r.corrupt(-1, "the file changed while it was read")
	}
	return io.EOF
}
