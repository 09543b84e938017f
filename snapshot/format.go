// Package snapshot reads and writes geoshard's snapshot files: a
// versioned, checksummed, streaming binary format holding every
// database's strings and geo keys (members with scores and write
// timestamps), key expiries and per-key position TTLs.
//
// Layout (all fixed-width integers big-endian):
//
//	header   magic "GSNAP\r\n\x1a" | version uint32 | created unix ms int64
//	records  tag byte, then the tag's fields (see below), any number
//	trailer  'E' | file length uint64 | CRC-64/ECMA of every byte before it
//
//	'D' db uvarint                                   selects a database
//	'S' key, value, expire-ms varint (0: none)       a string key
//	'Z' key, expire-ms varint (0: none)              starts a geo key
//	'M' member, score float64 bits, stamp varint     a member of the last 'Z'
//	'P' key, position TTL ns varint                  a per-key position TTL
//
// Byte strings are a uvarint length and the bytes. The "\r\n\x1a" in the
// magic catches text-mode mangling, as PNG's does. The trailer comes last
// so a writer never seeks: a file cut short has no trailer, which is how
// truncation is told from corruption.
package snapshot

import (
	"errors"
	"fmt"
	"hash/crc64"
)

// Version is the format version this package writes and the newest it reads.
const Version = 1

const (
	magic      = "GSNAP\r\n\x1a"
	headerLen  = len(magic) + 4 + 8
	trailerLen = 1 + 8 + 8
	// maxString bounds one key, value or member, as Redis's
	// proto-max-bulk-len does; a corrupt length must not allocate more.
	maxString = 512 << 20
)

const (
	tagDB      = 'D'
	tagString  = 'S'
	tagZset    = 'Z'
	tagMember  = 'M'
	tagPosTTL  = 'P'
	tagTrailer = 'E'
)

var crcTable = crc64.MakeTable(crc64.ECMA)

// Kind is what a record holds.
type Kind byte

// The kinds of record Reader.Next returns.
const (
	KindDB     Kind = tagDB
	KindString Kind = tagString
	KindZset   Kind = tagZset
	KindMember Kind = tagMember
	KindPosTTL Kind = tagPosTTL
)

// Sentinels for errors.Is: what kind of problem a snapshot has.
var (
	ErrTruncated = errors.New("truncated")
	ErrCorrupt   = errors.New("corrupt")
	ErrVersion   = errors.New("unsupported version")
)

// Error is a snapshot that cannot be read: which file, where, and what is
// wrong with it.
type Error struct {
	File   string
	Offset int64 // -1 when the problem is the file as a whole
	Kind   error // ErrTruncated, ErrCorrupt or ErrVersion
	Detail string
}

func (e *Error) Error() string {
	at := ""
	if e.Offset >= 0 {
		at = fmt.Sprintf(" at byte %d", e.Offset)
	}
	return fmt.Sprintf("snapshot %s: %v%s: %s", e.File, e.Kind, at, e.Detail)
}

func (e *Error) Unwrap() error { return e.Kind }
