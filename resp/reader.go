// Package resp is the Redis protocol. The server side reads requests
// (reader.go; inline lines split as sdssplitargs does, splitargs.go) and
// writes replies in RESP2 or RESP3 (writer.go), with Redis's own limits and
// protocol error texts. The client side, for the tools and tests that talk
// to a server, reads replies byte-exact and decodes them (reply*.go).
package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
)

// Limits Redis applies to requests before a command ever runs.
const (
	DefaultMaxBulkLen = 512 << 20 // proto-max-bulk-len
	maxMultibulkLen   = math.MaxInt32
	maxInlineLen      = 64 << 10
	// What a client that still owes AUTH may send, as Redis 7.0: a few
	// words of at most 16 KB, so that it cannot make the server hold much.
	maxUnauthMultibulkLen = 10
	maxUnauthBulkLen      = 16 << 10
	// readChunk is both the read buffer and Redis's PROTO_IOBUF_LEN: the
	// line limits are checked per read of this size, as Redis does.
	readChunk = 16 << 10
	// keepBuf is the largest argument buffer kept between commands; a
	// bigger one, from a big bulk, goes back to the allocator.
	keepBuf = 1 << 20
)

// ProtocolError is a malformed request. Redis answers it with
// "-ERR Protocol error: ..." and closes the connection.
type ProtocolError string

func (e ProtocolError) Error() string { return "ERR Protocol error: " + string(e) }

// Reader reads one command at a time from a client connection.
type Reader struct {
	rd         *bufio.Reader
	MaxBulkLen int64
	// Unauthenticated applies Redis's limits for a client that has not
	// given the password it must give yet.
	Unauthenticated bool
	// BigBytes counts the bytes of big bulks received, whole or not (see
	// readBig): memory worth handing back once the connection ends.
	BigBytes int64
	args     [][]byte
	buf      []byte
	spans    []span // where each word of the command being read lies
}

// span is where one word of a command lies: in Reader.buf, or on its own
// when it is a big bulk (readBig).
type span struct {
	lo, hi int
	big    []byte
}

// NewReader returns a Reader with Redis's default limits.
func NewReader(r io.Reader) *Reader {
	return &Reader{rd: bufio.NewReaderSize(r, readChunk), MaxBulkLen: DefaultMaxBulkLen}
}

// Buffered reports how many bytes are ready without another read; the
// server flushes replies only when a pipeline is drained.
func (r *Reader) Buffered() int { return r.rd.Buffered() }

// ReadCommand returns the next command's words. The slices stay valid only
// until the next call. An empty command (a blank inline line, "*0") is
// skipped as Redis does.
func (r *Reader) ReadCommand() ([][]byte, error) {
	if cap(r.buf) > keepBuf {
		r.buf = nil // a long pipeline's words: not pinned to an idle client
	}
	if cap(r.spans) > keepSpans {
		r.spans = nil // nor a huge command's word list
	}
	r.args = r.args[:0]
	for {
		args, err := r.readOne()
		if err != nil || len(args) > 0 {
			return args, err
		}
	}
}

func (r *Reader) readOne() ([][]byte, error) {
	b, err := r.rd.Peek(1)
	if err != nil {
		return nil, err
	}
	if b[0] != '*' {
		return r.readInline()
	}
	line, err := r.readLine(maxInlineLen, "too big mbulk count string", true, "invalid multibulk length")
	if err != nil {
		return nil, err
	}
	n, ok := parseLen(line[1:])
	if !ok || n > maxMultibulkLen {
		return nil, ProtocolError("invalid multibulk length")
	}
	if r.Unauthenticated && n > maxUnauthMultibulkLen {
		return nil, ProtocolError("unauthenticated multibulk length")
	}
	if n <= 0 {
		return nil, nil
	}
	// Arguments are copied into one buffer so that a pipeline of small
	// commands costs no allocation per argument, and the word list is
	// the connection's, reused: grown as the words arrive (a count alone
	// reserves nothing), kept for the next command, so that neither a
	// ping nor a 100-member GEOADD allocates one (it used to: about
	// 40 KB of doublings for a GEOADD of 100 members).
	r.buf = r.buf[:0]
	spans := r.spans[:0]
	defer func() { r.spans = clear0(spans) }()
	for i := int64(0); i < n; i++ {
		line, err := r.readLine(maxInlineLen, "too big bulk count string", true, "invalid bulk length")
		if err != nil {
			return nil, err
		}
		if len(line) == 0 || line[0] != '$' {
			c := "?"
			if len(line) > 0 {
				c = string(line[0])
			}
			return nil, ProtocolError("expected '$', got '" + c + "'")
		}
		size, ok := parseLen(line[1:])
		if !ok || size < 0 || size > r.MaxBulkLen {
			return nil, ProtocolError("invalid bulk length")
		}
		if r.Unauthenticated && size > maxUnauthBulkLen {
			return nil, ProtocolError("unauthenticated bulk length")
		}
		if size > keepBuf {
			big, err := r.readBig(int(size))
			if err != nil {
				return nil, err
			}
			spans = append(spans, span{big: big})
			continue
		}
		// Grow as the data arrives: the buffer doubles, but this bulk
		// is at most keepBuf, so a header alone reserves little.
		lo := len(r.buf)
		r.buf = grow(r.buf, int(size)+2)
		if _, err := io.ReadFull(r.rd, r.buf[lo:]); err != nil {
			return nil, unexpected(err)
		}
		// Redis does not check the CRLF after a bulk; neither do we.
		r.buf = r.buf[:lo+int(size)]
		spans = append(spans, span{lo: lo, hi: lo + int(size)})
	}
	for _, s := range spans {
		if s.big != nil {
			r.args = append(r.args, s.big)
			continue
		}
		r.args = append(r.args, r.buf[s.lo:s.hi:s.hi])
	}
	return r.args, nil
}

// keepSpans bounds the word list a connection keeps between commands.
const keepSpans = 4096

// clear0 drops the big bulks a span list points to, so that a kept list
// does not pin them, and returns it empty.
func clear0(s []span) []span {
	for i := range s {
		s[i].big = nil
	}
	return s[:0]
}

func grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b[:len(b)+n]
	}
	nb := make([]byte, len(b)+n, 2*cap(b)+n)
	copy(nb, b)
	return nb
}

// bigChunk is the piece a big bulk is received in.
const bigChunk = 4 << 20

// readBig reads a bulk of more than keepBuf bytes (and its CRLF) in
// pieces of bigChunk, and makes it one slice only once all of it came:
// a client that announces a big bulk and sends part of it costs what it
// sent, not what it announced nor the doubling's copies, and it all goes
// when the client does.
func (r *Reader) readBig(size int) ([]byte, error) {
	var pieces [][]byte
	for left := size + 2; left > 0; {
		p := make([]byte, min(left, bigChunk))
		if _, err := io.ReadFull(r.rd, p); err != nil {
			return nil, unexpected(err)
		}
		pieces = append(pieces, p)
		left -= len(p)
		r.BigBytes += int64(len(p))
	}
	out := make([]byte, 0, size+2)
	for i := range pieces {
		out = append(out, pieces[i]...)
		pieces[i] = nil // each piece can go as soon as it is copied
	}
	return out[:size:size], nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// readLine returns one CRLF- (or LF-) terminated line without its end.
// The limit works as Redis's: once limit bytes have come with no line
// end, a read that brings more and still no line end is an error, while
// a line end within that read ends the line normally.
func (r *Reader) readLine(limit int, tooBig string, strict bool, bareLF string) ([]byte, error) {
	line, err := r.rd.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: keep reading up to Redis's limit.
		r.buf = append(r.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(r.buf) >= limit {
				if _, perr := r.rd.Peek(1); perr != nil {
					return nil, unexpected(perr)
				}
				more, _ := r.rd.Peek(r.rd.Buffered())
				if bytes.IndexByte(more, '\n') < 0 {
					return nil, ProtocolError(tooBig)
				}
			}
			line, err = r.rd.ReadSlice('\n')
			r.buf = append(r.buf, line...)
		}
		line = r.buf
	}
	if err != nil {
		return nil, unexpected(err)
	}
	line = line[:len(line)-1]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	} else if strict {
		// Redis ends these lines at '\r': what a bare LF ends is not a
		// number it can read.
		return nil, ProtocolError(bareLF)
	}
	return line, nil
}

func (r *Reader) readInline() ([][]byte, error) {
	line, err := r.readLine(maxInlineLen, "too big inline request", false, "")
	if err != nil {
		return nil, err
	}
	words, ok := SplitArgs(line)
	if !ok {
		return nil, ProtocolError("unbalanced quotes in request")
	}
	return words, nil
}

// parseLen reads a length as Redis's string2ll does: no '+', no leading
// zeros, no spaces.
func parseLen(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	if b[0] == '-' && (len(b) == 1 || b[1] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil && b[0] != '+'
}

// ErrClosed is returned for a connection closed mid-request.
var ErrClosed = errors.New("connection closed")
