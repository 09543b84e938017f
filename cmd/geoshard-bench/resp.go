package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tidwall/redcon"
)

// The tool speaks RESP itself instead of using go-redis: a load generator
// shares the 2-core machine with the server it measures, so every
// microsecond of client CPU per request is taken from the server. Commands
// are appended into one reused buffer, and replies are walked without
// building values: only their shape (array length, error text) is kept.

// The request framing is github.com/tidwall/redcon's appenders (the part
// of redcon this project uses: its server side is not Redis's protocol to
// the byte, see the README's dependencies).

func appendArrayHeader(b []byte, n int) []byte { return redcon.AppendArray(b, n) }

func appendBulk(b []byte, s string) []byte { return redcon.AppendBulkString(b, s) }

func appendBulkBytes(b, s []byte) []byte { return redcon.AppendBulk(b, s) }

// appendBulkCoord writes a coordinate with 6 decimals (about 0.1 m), the
// precision a GPS ping carries.
func appendBulkCoord(b []byte, f float64) []byte {
	var tmp [32]byte
	return appendBulkBytes(b, strconv.AppendFloat(tmp[:0], f, 'f', 6, 64))
}

func appendBulkFloat(b []byte, f float64) []byte {
	var tmp [32]byte
	return appendBulkBytes(b, strconv.AppendFloat(tmp[:0], f, 'f', -1, 64))
}

func appendBulkInt(b []byte, n int) []byte {
	var tmp [24]byte
	return appendBulkBytes(b, strconv.AppendInt(tmp[:0], int64(n), 10))
}

// appendBulkMember writes the member name of driver i, "driver:<i>".
func appendBulkMember(b []byte, i int) []byte {
	var tmp [32]byte
	name := append(tmp[:0], "driver:"...)
	return appendBulkBytes(b, strconv.AppendInt(name, int64(i), 10))
}

// appendCommand writes a command made only of string arguments; used off the
// hot path (INFO, DEL, ZCARD).
func appendCommand(b []byte, args ...string) []byte {
	b = appendArrayHeader(b, len(args))
	for _, a := range args {
		b = appendBulk(b, a)
	}
	return b
}

// reply is the shape of one server reply. Nested elements are skipped, not
// kept; a top-level string is kept only when the caller asks for it.
type reply struct {
	kind byte   // RESP type byte: '+', '-', ':', '$', '*', or a RESP3 type
	n    int64  // array/map length, integer value, bulk length; -1 for null
	str  string // error text, or the string value when captured
}

func (r reply) isError() bool { return r.kind == '-' || r.kind == '!' }

// maxNesting bounds recursion over nested replies; GEOSEARCH WITHDIST
// WITHCOORD nests three deep, nothing the tool sends nests more than that.
const maxNesting = 16

// readReply reads one full reply. With capture, a top-level simple or bulk
// string is returned in str (INFO needs it); errors always are.
func readReply(r *bufio.Reader, capture bool) (reply, error) {
	return readValue(r, capture, 0)
}

func readValue(r *bufio.Reader, capture bool, depth int) (reply, error) {
	if depth > maxNesting {
		return reply{}, errors.New("resp: reply nested too deep")
	}
	line, err := readLine(r)
	if err != nil {
		return reply{}, err
	}
	if len(line) == 0 {
		return reply{}, errors.New("resp: empty reply line")
	}
	rep := reply{kind: line[0]}
	body := line[1:]
	switch rep.kind {
	case '+', '-', ',', '#', '(':
		if capture || rep.kind == '-' {
			rep.str = string(body)
		}
		return rep, nil
	case '_':
		rep.n = -1
		return rep, nil
	case ':':
		rep.n, err = parseInt(body)
		return rep, err
	case '$', '=', '!':
		if rep.n, err = parseInt(body); err != nil || rep.n < 0 {
			return rep, err
		}
		if capture || rep.kind == '!' {
			buf := make([]byte, rep.n+2)
			if _, err := io.ReadFull(r, buf); err != nil {
				return rep, fmt.Errorf("resp: reading %d-byte string: %w", rep.n, err)
			}
			rep.str = string(buf[:rep.n])
			return rep, nil
		}
		if _, err := r.Discard(int(rep.n) + 2); err != nil {
			return rep, fmt.Errorf("resp: skipping %d-byte string: %w", rep.n, err)
		}
		return rep, nil
	case '*', '~', '>', '%', '|':
		if rep.n, err = parseInt(body); err != nil || rep.n < 0 {
			return rep, err
		}
		elems := rep.n
		if rep.kind == '%' || rep.kind == '|' {
			elems *= 2
		}
		for range elems {
			if _, err := readValue(r, false, depth+1); err != nil {
				return rep, err
			}
		}
		if rep.kind == '|' { // attributes precede the real reply
			return readValue(r, capture, depth)
		}
		return rep, nil
	default:
		return rep, fmt.Errorf("resp: unknown reply type %q", rep.kind)
	}
}

// readLine returns one line without its CRLF. The slice points into the
// reader's buffer and is valid until the next read.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errors.New("resp: reply line too long")
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("resp: line %q not terminated by CRLF", line)
	}
	return line[:len(line)-2], nil
}

func parseInt(b []byte) (int64, error) {
	if len(b) == 0 || len(b) > 19 {
		return 0, fmt.Errorf("resp: bad integer %q", b)
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, errors.New("resp: bad integer \"-\"")
		}
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("resp: bad integer %q", b)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}
