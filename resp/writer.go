package resp

import (
	"strconv"
)

// Writer appends replies to a buffer in the client's protocol version.
// Replies are queued and written by the server when a pipeline is drained.
type Writer struct {
	Buf   []byte
	Proto int // 2 or 3
}

func (w *Writer) line(prefix byte, s string) {
	w.Buf = append(w.Buf, prefix)
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

func (w *Writer) count(prefix byte, n int) {
	w.Buf = append(w.Buf, prefix)
	w.Buf = strconv.AppendInt(w.Buf, int64(n), 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Simple writes a status reply such as OK.
func (w *Writer) Simple(s string) { w.line('+', s) }

// OK writes +OK.
func (w *Writer) OK() { w.Buf = append(w.Buf, "+OK\r\n"...) }

// Error writes an error; msg starts with its code (ERR, WRONGTYPE, ...).
// Line breaks would end the reply early, so they become spaces, as in Redis.
func (w *Writer) Error(msg string) {
	start := len(w.Buf) + 1
	w.line('-', msg)
	for i := start; i < len(w.Buf)-2; i++ {
		if w.Buf[i] == '\r' || w.Buf[i] == '\n' {
			w.Buf[i] = ' '
		}
	}
}

// Int writes an integer reply.
func (w *Writer) Int(n int64) {
	w.Buf = append(w.Buf, ':')
	w.Buf = strconv.AppendInt(w.Buf, n, 10)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.count('$', len(b))
	w.Buf = append(w.Buf, b...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// BulkString writes a bulk string.
func (w *Writer) BulkString(s string) {
	w.count('$', len(s))
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Array starts an array of n elements.
func (w *Writer) Array(n int) { w.count('*', n) }

// Map starts a map of n pairs (a flat array of 2n in RESP2).
func (w *Writer) Map(n int) {
	if w.Proto >= 3 {
		w.count('%', n)
	} else {
		w.count('*', 2*n)
	}
}

// Set starts a set of n elements (an array in RESP2).
func (w *Writer) Set(n int) {
	if w.Proto >= 3 {
		w.count('~', n)
	} else {
		w.count('*', n)
	}
}

// Null writes the null that Redis sends where a bulk string is missing:
// $-1 in RESP2, _ in RESP3.
func (w *Writer) Null() {
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
	} else {
		w.Buf = append(w.Buf, "$-1\r\n"...)
	}
}

// NullArray writes the null that Redis sends where an array is missing:
// *-1 in RESP2, _ in RESP3.
func (w *Writer) NullArray() {
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, "_\r\n"...)
	} else {
		w.Buf = append(w.Buf, "*-1\r\n"...)
	}
}

// DoubleText writes a number already formatted the way Redis prints it:
// a RESP3 double, or a bulk string in RESP2.
func (w *Writer) DoubleText(text []byte) {
	if w.Proto >= 3 {
		w.Buf = append(w.Buf, ',')
		w.Buf = append(w.Buf, text...)
		w.Buf = append(w.Buf, '\r', '\n')
		return
	}
	w.Bulk(text)
}

// Bool writes a RESP3 boolean, or the integer 1/0 in RESP2.
func (w *Writer) Bool(v bool) {
	switch {
	case w.Proto < 3 && v:
		w.Buf = append(w.Buf, ":1\r\n"...)
	case w.Proto < 3:
		w.Buf = append(w.Buf, ":0\r\n"...)
	case v:
		w.Buf = append(w.Buf, "#t\r\n"...)
	default:
		w.Buf = append(w.Buf, "#f\r\n"...)
	}
}

// Verbatim writes a RESP3 verbatim string (INFO, CLIENT LIST), or a bulk
// string in RESP2.
func (w *Writer) Verbatim(s string) {
	if w.Proto < 3 {
		w.BulkString(s)
		return
	}
	w.count('=', len(s)+4)
	w.Buf = append(w.Buf, "txt:"...)
	w.Buf = append(w.Buf, s...)
	w.Buf = append(w.Buf, '\r', '\n')
}

// Raw appends bytes that are already a complete reply.
func (w *Writer) Raw(b []byte) { w.Buf = append(w.Buf, b...) }
