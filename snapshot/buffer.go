package snapshot

import (
	"encoding/binary"
	"fmt"
	"io"
)

// blockSize is how much of the file one read brings in. The records are
// parsed straight out of the block and the checksum runs over whole
// blocks: per-byte reads through bufio and a per-byte checksum update
// were most of the decoding's CPU at a million members.
const blockSize = 1 << 20

// fill makes at least n bytes available at r.buf[r.pos:], reading
// whole blocks of the file up to the stored checksum; the checksum of
// every byte read is taken as it comes in. Callers have checked that n
// bytes remain before r.end, so a corrupt length never allocates more
// than the file holds.
func (r *Reader) fill(n int) error {
	have := len(r.buf) - r.pos
	if have >= n {
		return nil
	}
	if size := max(blockSize, n); cap(r.buf) < size {
		b := make([]byte, have, size)
		copy(b, r.buf[r.pos:])
		r.buf = b
	} else {
		r.buf = r.buf[:copy(r.buf[:cap(r.buf)], r.buf[r.pos:])]
	}
	r.pos = 0
	for len(r.buf) < n {
		room := min(int64(cap(r.buf)-len(r.buf)), r.stop-r.filled)
		if room <= 0 {
			return fmt.Errorf("snapshot %s: read: the file is shorter than when opened", r.path)
		}
		from := len(r.buf)
		m, err := r.f.Read(r.buf[from : from+int(room)])
		r.buf = r.buf[:from+m]
		r.crc.Write(r.buf[from:])
		r.filled += int64(m)
		if err == io.EOF && m == 0 {
			return fmt.Errorf("snapshot %s: read: %w", r.path, io.ErrUnexpectedEOF)
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("snapshot %s: read: %w", r.path, err)
		}
	}
	r.text = ""
	return nil
}

// take returns the next n bytes, valid until the next read.
func (r *Reader) take(n int) ([]byte, error) {
	if int64(n) > r.end-r.off {
		return nil, r.corrupt(r.off, "a record runs into the end record")
	}
	if err := r.fill(n); err != nil {
		return nil, err
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	r.off += int64(n)
	return b, nil
}

func (r *Reader) byte() (byte, error) {
	if r.pos < len(r.buf) && r.off < r.end {
		b := r.buf[r.pos]
		r.pos++
		r.off++
		return b, nil
	}
	b, err := r.take(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *Reader) uvarint() (uint64, error) {
	at := r.off
	n := int(min(binary.MaxVarintLen64, r.end-r.off))
	if err := r.fill(n); err != nil {
		return 0, err
	}
	v, used := binary.Uvarint(r.buf[r.pos : r.pos+n])
	switch {
	case used == 0:
		return 0, r.corrupt(at, "a record runs into the end record")
	case used < 0:
		return 0, r.corrupt(at, "varint longer than 64 bits")
	}
	r.pos += used
	r.off += int64(used)
	return v, nil
}

func (r *Reader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// bytes reads a length-prefixed string, valid until the next read.
func (r *Reader) bytes() ([]byte, error) {
	at := r.off
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > maxString || int64(n) > r.end-r.off {
		return nil, r.corrupt(at, "string length %d past the end of the records", n)
	}
	return r.take(int(n))
}

func (r *Reader) str() (string, error) {
	b, err := r.bytes()
	return string(b), err
}

// member reads a length-prefixed string as a slice of one string copy
// of the whole buffer: a million members cost a few block copies
// instead of a million small allocations. The copy stays alive while
// any member read from it does, so this is only for strings the caller
// copies elsewhere (the member names, which the index stores in its own
// arenas); a key kept as a map key would pin its block.
func (r *Reader) member() (string, error) {
	b, err := r.bytes()
	if err != nil || len(b) == 0 {
		return "", err
	}
	if r.text == "" {
		r.text = string(r.buf)
	}
	from := r.pos - len(b)
	return r.text[from:r.pos], nil
}
