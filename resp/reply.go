package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// The client side: tools and tests that talk to a server (geoshard or
// redis-server) read its replies here. ReadReply never interprets a reply,
// it only finds where one ends and keeps exactly the bytes the server sent,
// so differential tests can compare servers byte for byte and a load
// generator can read into one reused buffer; ParseReply and SplitReply
// take those bytes apart when a caller needs values.

// Bounds on what a reply may make its reader do. Lengths are checked
// against the data as it arrives (a bulk is read in chunks), so a header
// that lies costs nothing; these bound the rest.
const (
	maxReplyBulk  = DefaultMaxBulkLen // the largest string a server stores
	maxReplyLine  = 1 << 20           // a simple string, error or number line
	maxReplyElems = 1 << 32           // elements of one aggregate
	maxReplyDepth = 32                // nesting; Redis replies nest a few levels
	replyChunk    = 1 << 20           // a bulk is read this much at a time
)

// ErrMalformed marks a reply that is not valid RESP2/RESP3.
var ErrMalformed = errors.New("malformed RESP reply")

// ReplyError is an error reply ('-' or '!'): the server's text, such as
// "ERR syntax error".
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// ReadReply reads one reply of any RESP2 or RESP3 type from br, appends its
// exact bytes to buf and returns the extended buffer. An attribute ('|')
// comes back together with the reply it annotates. Framing is strict:
// lines end in CRLF, lengths and numbers are well formed, a bulk ends in
// CRLF. A malformed reply gives an error wrapping ErrMalformed; a short
// one io.EOF or io.ErrUnexpectedEOF. On error the returned buffer holds
// what was read so far.
func ReadReply(br *bufio.Reader, buf []byte) ([]byte, error) {
	return readReplyValue(br, buf, 0)
}

func readReplyValue(br *bufio.Reader, buf []byte, depth int) ([]byte, error) {
	if depth > maxReplyDepth {
		return buf, fmt.Errorf("%w: nesting deeper than %d", ErrMalformed, maxReplyDepth)
	}
	start := len(buf)
	buf, err := readReplyLine(br, buf)
	if err != nil {
		return buf, err
	}
	typ, n, err := replyHeader(buf[start : len(buf)-2])
	if err != nil || n < 0 {
		return buf, err
	}
	switch {
	case isBlob(typ):
		return readBlob(br, buf, n)
	case isAggregate(typ):
		if buf, err = readElements(br, buf, typ, n, depth); err != nil {
			return buf, err
		}
		if typ == '|' {
			// An attribute annotates the reply that follows it.
			return readReplyValue(br, buf, depth)
		}
	}
	return buf, nil
}

// readElements appends an aggregate's n elements. Those already whole in
// the reader's buffer are found there and copied in one go, which is most
// replies; the rest are read piece by piece.
func readElements(br *bufio.Reader, buf []byte, typ byte, n int64, depth int) ([]byte, error) {
	p, _ := br.Peek(br.Buffered())
	i, end := int64(0), 0
	for ; i < n; i++ {
		m, err := replyEnd(p[end:], depth+1)
		if err != nil {
			break // incomplete, or malformed: the slow path says which
		}
		end += m
	}
	buf = append(buf, p[:end]...)
	br.Discard(end)
	for ; i < n; i++ {
		var err error
		if buf, err = readReplyValue(br, buf, depth+1); err != nil {
			return buf, fmt.Errorf("element %d of %c%d: %w", i, typ, n, err)
		}
	}
	return buf, nil
}

// errIncomplete is replyEnd's answer when the bytes end inside the reply.
var errIncomplete = errors.New("incomplete reply")

// replyEnd returns the length of the reply p starts with, checked as
// ReadReply checks it, or errIncomplete.
func replyEnd(p []byte, depth int) (int, error) {
	if depth > maxReplyDepth {
		return 0, ErrMalformed
	}
	eol := lineEnd(p)
	if eol < 1 || p[eol-1] != '\r' {
		if eol < 0 {
			return 0, errIncomplete
		}
		return 0, ErrMalformed
	}
	typ, n, err := replyHeader(p[:eol-1])
	if err != nil {
		return 0, err
	}
	end := eol + 1
	switch {
	case isBlob(typ) && n >= 0:
		if int64(len(p)-end) < n+2 {
			return 0, errIncomplete
		}
		end += int(n) + 2
		if p[end-2] != '\r' || p[end-1] != '\n' {
			return 0, ErrMalformed
		}
	case isAggregate(typ) && n >= 0:
		if n > int64(len(p)-end)/3 {
			return 0, errIncomplete // each element takes three bytes at least
		}
		for range n {
			m, err := replyEnd(p[end:], depth+1)
			if err != nil {
				return 0, err
			}
			end += m
		}
		if typ == '|' {
			m, err := replyEnd(p[end:], depth)
			return end + m, err
		}
	}
	return end, nil
}

// readReplyLine appends one CRLF-terminated line to buf.
func readReplyLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	chunk, err := br.ReadSlice('\n')
	if err == nil && len(chunk) >= 2 && chunk[len(chunk)-2] == '\r' {
		return append(buf, chunk...), nil // the common case, kept short
	}
	return readLongLine(br, buf, chunk, err)
}

// readLongLine is readReplyLine past a full buffer, EOF or a bad ending.
func readLongLine(br *bufio.Reader, buf, chunk []byte, err error) ([]byte, error) {
	start := len(buf)
	buf = append(buf, chunk...)
	for errors.Is(err, bufio.ErrBufferFull) {
		if len(buf)-start > maxReplyLine {
			return buf, fmt.Errorf("%w: line longer than %d bytes", ErrMalformed, maxReplyLine)
		}
		chunk, err = br.ReadSlice('\n')
		buf = append(buf, chunk...)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(buf) > start {
			err = io.ErrUnexpectedEOF
		}
		return buf, fmt.Errorf("reading reply line: %w", err)
	}
	line := buf[start:]
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return buf, fmt.Errorf("%w: line %q not terminated by CRLF", ErrMalformed, cut(line))
	}
	return buf, nil
}

// readBlob appends a bulk's n bytes and its CRLF: from the reader's
// buffer when they are all there, else in chunks, so that the buffer grows
// only as fast as data arrives.
func readBlob(br *bufio.Reader, buf []byte, n int64) ([]byte, error) {
	if int64(br.Buffered()) >= n+2 {
		p, _ := br.Peek(int(n + 2))
		buf = append(buf, p...)
		br.Discard(len(p))
	} else {
		var err error
		if buf, err = readBlobSlow(br, buf, n); err != nil {
			return buf, err
		}
	}
	if buf[len(buf)-2] != '\r' || buf[len(buf)-1] != '\n' {
		return buf, fmt.Errorf("%w: %d-byte bulk not terminated by CRLF", ErrMalformed, n)
	}
	return buf, nil
}

func readBlobSlow(br *bufio.Reader, buf []byte, n int64) ([]byte, error) {
	for left := n + 2; left > 0; {
		chunk := int(min(left, replyChunk))
		at := len(buf)
		if cap(buf)-at < chunk {
			buf = append(buf[:cap(buf)], make([]byte, chunk-(cap(buf)-at))...)
		}
		buf = buf[:at+chunk]
		m, err := io.ReadFull(br, buf[at:])
		buf = buf[:at+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return buf, fmt.Errorf("reading %d-byte bulk: %w", n, err)
		}
		left -= int64(chunk)
	}
	return buf, nil
}

// lineEnd returns the index of p's first LF, or -1. Type lines are short:
// a plain loop finds their end sooner than IndexByte's vector code starts.
func lineEnd(p []byte) int {
	for i := range min(len(p), 24) {
		if p[i] == '\n' {
			return i
		}
	}
	if len(p) <= 24 {
		return -1
	}
	if i := bytes.IndexByte(p[24:], '\n'); i >= 0 {
		return 24 + i
	}
	return -1
}

// isBlob reports the types whose header gives a byte length.
func isBlob(typ byte) bool { return typ == '$' || typ == '!' || typ == '=' }

// isAggregate reports the types whose header gives an element count.
func isAggregate(typ byte) bool {
	return typ == '*' || typ == '~' || typ == '>' || typ == '%' || typ == '|'
}

// replyHeader checks a reply's type line (without CRLF) and returns its
// type and, for a blob, its byte length, for an aggregate its element
// count (a map's or attribute's pairs counted twice), -1 for a RESP2 null.
func replyHeader(line []byte) (typ byte, n int64, err error) {
	if len(line) == 0 {
		return 0, 0, fmt.Errorf("%w: empty type line", ErrMalformed)
	}
	typ, rest := line[0], line[1:]
	ok := true
	switch typ {
	case ':':
		_, ok = replyInt(rest)
	case '$', '*', '!', '=', '~', '>':
		n, ok = replyLen(rest, typ == '$' || typ == '*')
		ok = ok && n <= maxReplyElems && (n <= maxReplyBulk || !isBlob(typ))
	case '%', '|':
		n, ok = replyLen(rest, false)
		ok = ok && n <= maxReplyElems
		n *= 2
	case '+', '-':
		ok = bytes.IndexByte(rest, '\r') < 0 // a line has no LF before its end
	case '#':
		ok = len(rest) == 1 && (rest[0] == 't' || rest[0] == 'f')
	case ',':
		_, ok = replyDouble(rest)
	case '(':
		_, ok = replyBigInt(rest)
	case '_':
		ok = len(rest) == 0
	default:
		return typ, 0, fmt.Errorf("%w: unknown type byte %q", ErrMalformed, typ)
	}
	if !ok {
		return typ, 0, fmt.Errorf("%w: %q line %q", ErrMalformed, typ, cut(rest))
	}
	return typ, n, nil
}

// replyLen reads a length: digits, or -1 where RESP2 allows a null.
func replyLen(b []byte, nullable bool) (int64, bool) {
	if nullable && len(b) == 2 && b[0] == '-' && b[1] == '1' {
		return -1, true
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// replyInt reads a signed 64-bit integer, as a ':' reply carries.
func replyInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg || (len(b) > 0 && b[0] == '+') {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case neg && u <= 1<<63:
		return int64(-u), true
	case !neg && u < 1<<63:
		return int64(u), true
	}
	return 0, false
}
