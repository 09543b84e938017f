package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"strconv"
)

// KV is one entry of a RESP3 map, in the order the server sent it.
type KV struct {
	Key, Value any
}

// ParseReply decodes the bytes of exactly one reply (as ReadReply returns
// them) into Go values:
//
//	'+' simple string, '$' bulk, '=' verbatim (text after "xxx:") → string
//	'-', '!' errors                                     → ReplyError
//	':' integer → int64; ',' double → float64; '#' boolean → bool
//	'(' big number → *big.Int; '_', "$-1", "*-1" nulls → nil
//	'*' array, '~' set, '>' push → []any; '%' map → []KV
//
// An attribute ('|') is dropped and the reply it annotates returned. An
// error reply is a value, not the error result, so a pipeline or an EXEC
// array decodes alike; the error result is for bytes that are not one
// well-formed reply.
func ParseReply(raw []byte) (any, error) {
	v, rest, err := parseReplyValue(raw, 0)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the reply", ErrMalformed, len(rest))
	}
	return v, nil
}

func parseReplyValue(raw []byte, depth int) (v any, rest []byte, err error) {
	if depth > maxReplyDepth {
		return nil, nil, fmt.Errorf("%w: nesting deeper than %d", ErrMalformed, maxReplyDepth)
	}
	eol := bytes.Index(raw, []byte("\r\n"))
	if eol < 0 {
		return nil, nil, fmt.Errorf("%w: %q: no CRLF-terminated line", ErrMalformed, cut(raw))
	}
	line, rest := raw[:eol], raw[eol+2:]
	if bytes.IndexByte(line, '\n') >= 0 {
		return nil, nil, fmt.Errorf("%w: line %q not terminated by CRLF", ErrMalformed, cut(line))
	}
	typ, n, err := replyHeader(line)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case n < 0: // "$-1", "*-1"
		return nil, rest, nil
	case isBlob(typ):
		if int64(len(rest)) < n+2 || rest[n] != '\r' || rest[n+1] != '\n' {
			return nil, nil, fmt.Errorf("%w: %d-byte bulk short or not terminated by CRLF", ErrMalformed, n)
		}
		return blobValue(typ, rest[:n]), rest[n+2:], nil
	case isAggregate(typ):
		return parseAggregate(typ, n, rest, depth)
	}
	return simpleValue(typ, line[1:]), rest, nil
}

// parseAggregate decodes n elements (a map's counted twice) from raw.
func parseAggregate(typ byte, n int64, raw []byte, depth int) (any, []byte, error) {
	// Every element takes at least three bytes, which bounds what a
	// header may make us allocate.
	if n > int64(len(raw))/3 {
		return nil, nil, fmt.Errorf("%w: %c%d with %d bytes left", ErrMalformed, typ, n, len(raw))
	}
	elems := make([]any, n)
	for i := range elems {
		var err error
		if elems[i], raw, err = parseReplyValue(raw, depth+1); err != nil {
			return nil, nil, fmt.Errorf("element %d of %c%d: %w", i, typ, n, err)
		}
	}
	switch typ {
	case '|':
		return parseReplyValue(raw, depth)
	case '%':
		m := make([]KV, n/2)
		for i := range m {
			m[i] = KV{elems[2*i], elems[2*i+1]}
		}
		return m, raw, nil
	}
	return elems, raw, nil
}

func blobValue(typ byte, p []byte) any {
	switch typ {
	case '!':
		return ReplyError(p)
	case '=':
		if len(p) >= 4 && p[3] == ':' {
			return string(p[4:])
		}
	}
	return string(p)
}

// simpleValue decodes a one-line reply that replyHeader has checked.
func simpleValue(typ byte, p []byte) any {
	switch typ {
	case '-':
		return ReplyError(p)
	case ':':
		n, _ := replyInt(p)
		return n
	case ',':
		x, _ := replyDouble(p)
		return x
	case '#':
		return p[0] == 't'
	case '(':
		n, _ := replyBigInt(p)
		return n
	case '_':
		return nil
	}
	return string(p)
}

// replyDouble reads a RESP3 double: a decimal, "inf", "-inf" or "nan".
func replyDouble(p []byte) (float64, bool) {
	if len(p) == 0 || bytes.IndexByte(p, '_') >= 0 {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(p), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return x, true
}

// replyBigInt reads a RESP3 big number: an optional '-' and digits.
func replyBigInt(p []byte) (*big.Int, bool) {
	digits := p
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return nil, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	return new(big.Int).SetString(string(p), 10)
}

// SplitReply splits the bytes of one aggregate reply ('*', '~', '>', '%')
// into its type line (with CRLF) and the exact bytes of each element, for
// comparisons that look inside a reply without decoding it (a map's keys
// and values come as separate elements).
func SplitReply(raw []byte) (header []byte, elems [][]byte, err error) {
	rd := bytes.NewReader(raw)
	br := bufio.NewReader(rd)
	header, err = readReplyLine(br, nil)
	if err != nil {
		return nil, nil, err
	}
	typ, n, err := replyHeader(header[:len(header)-2])
	if err != nil {
		return nil, nil, err
	}
	if !isAggregate(typ) || typ == '|' {
		return nil, nil, fmt.Errorf("%w: %q is not an array, set, push or map", ErrMalformed, cut(header))
	}
	var buf []byte
	for i := int64(0); i < n; i++ {
		at := len(buf)
		if buf, err = ReadReply(br, buf); err != nil {
			return nil, nil, fmt.Errorf("element %d of %q: %w", i, cut(header), err)
		}
		elems = append(elems, buf[at:len(buf):len(buf)])
	}
	if left := br.Buffered() + rd.Len(); left != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the reply", ErrMalformed, left)
	}
	return header, elems, nil
}

// cut shortens bytes quoted in an error message.
func cut(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}
