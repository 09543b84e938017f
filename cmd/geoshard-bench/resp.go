package main

import (
	"bufio"
	"strconv"

	"github.com/tidwall/redcon"

	"geoshard/resp"
)

// The tool speaks RESP itself instead of using go-redis: a load generator
// shares the 2-core machine with the server it measures, so every
// microsecond of client CPU per request is taken from the server. Commands
// are appended into one reused buffer, and replies are read into another
// (resp.ReadReply) and never decoded: only their shape (array length,
// error text) is kept.

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

// reply is the shape of one server reply: its type, and for an aggregate
// its length, not its elements; a top-level string is kept only when the
// caller asks for it.
type reply struct {
	kind byte   // RESP type byte: '+', '-', ':', '$', '*', or a RESP3 type
	n    int64  // array/map length, integer value, bulk length; -1 for null
	str  string // error text, or the string value when captured
}

func (r reply) isError() bool { return r.kind == '-' || r.kind == '!' }

// readReply reads one full reply into buf (the caller's, reused from call
// to call so the hot loop does not allocate) and returns its shape and
// the buffer. With capture, a top-level simple or bulk string is returned
// in str (INFO needs it); errors always are.
func readReply(r *bufio.Reader, buf []byte, capture bool) (reply, []byte, error) {
	raw, err := resp.ReadReply(r, buf[:0])
	if err != nil {
		return reply{}, raw, err
	}
	return shapeOf(raw, capture), raw, nil
}

// shapeOf reads the shape of a reply from its bytes, which ReadReply has
// checked: the type line says all but a string's value.
func shapeOf(raw []byte, capture bool) reply {
	if raw[0] == '|' {
		return shapeOfValue(raw) // attributes are rare: decode it all
	}
	eol := 1
	for raw[eol] != '\r' { // ReadReply checked there is a CRLF
		eol++
	}
	rep := reply{kind: raw[0]}
	body := raw[1:eol]
	switch rep.kind {
	case '+', '-', ',', '#', '(':
		if capture || rep.kind == '-' {
			rep.str = string(body)
		}
	case '_':
		rep.n = -1
	case ':', '$', '=', '!', '*', '~', '>', '%':
		rep.n = parseInt(body)
		if rep.n > 0 && (capture || rep.kind == '!') && (rep.kind == '$' || rep.kind == '=' || rep.kind == '!') {
			rep.str = string(raw[eol+2 : len(raw)-2])
		}
	}
	return rep
}

// shapeOfValue is shapeOf by way of the decoded reply, for a reply behind
// an attribute.
func shapeOfValue(raw []byte) reply {
	v, err := resp.ParseReply(raw)
	if err != nil {
		return reply{kind: '-', str: err.Error()}
	}
	switch v := v.(type) {
	case resp.ReplyError:
		return reply{kind: '-', str: string(v)}
	case string:
		return reply{kind: '$', n: int64(len(v)), str: v}
	case int64:
		return reply{kind: ':', n: v}
	case []any:
		return reply{kind: '*', n: int64(len(v))}
	case []resp.KV:
		return reply{kind: '%', n: int64(len(v))}
	case nil:
		return reply{kind: '_', n: -1}
	}
	return reply{kind: '+'}
}

// parseInt reads a length or integer that ReadReply has already checked.
func parseInt(b []byte) int64 {
	neg := len(b) > 0 && b[0] == '-'
	if neg || (len(b) > 0 && b[0] == '+') {
		b = b[1:]
	}
	var n int64
	for _, c := range b {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n
}
