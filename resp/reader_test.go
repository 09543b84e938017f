package resp

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readAll(in string) ([][]string, error) {
	r := NewReader(strings.NewReader(in))
	var out [][]string
	for {
		args, err := r.ReadCommand()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		var words []string
		for _, a := range args {
			words = append(words, string(a))
		}
		out = append(out, words)
	}
}

func TestReader(t *testing.T) {
	tests := []struct {
		in   string
		want [][]string
		err  string
	}{
		{in: "*1\r\n$4\r\nPING\r\n", want: [][]string{{"PING"}}},
		{in: "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*0\r\n*1\r\n$4\r\nPING\r\n", want: [][]string{{"ECHO", ""}, {"PING"}}},
		{in: "PING\r\nset k 'a b' \"c\\x41\\n\"\r\n\r\n", want: [][]string{{"PING"}, {"set", "k", "a b", "cA\n"}}},
		{in: "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\r\nb\x00\r\n", want: [][]string{{"SET", "k", "a\r\nb\x00"}}},
		{in: "*abc\r\n", err: "ERR Protocol error: invalid multibulk length"},
		{in: "*1\n$4\r\nPING\r\n", err: "ERR Protocol error: invalid multibulk length"},
		{in: "*1\r\n$-5\r\n", err: "ERR Protocol error: invalid bulk length"},
		{in: "*1\r\n$+4\r\nPING\r\n", err: "ERR Protocol error: invalid bulk length"},
		{in: "*1\r\n$04\r\nPING\r\n", err: "ERR Protocol error: invalid bulk length"},
		{in: "*1\r\n$2000000000\r\n", err: "ERR Protocol error: invalid bulk length"},
		{in: "*1\r\nPING\r\n", err: "ERR Protocol error: expected '$', got 'P'"},
		{in: "*2000000\r\n", err: "ERR Protocol error: invalid multibulk length"},
		{in: "set k \"unbalanced\r\n", err: "ERR Protocol error: unbalanced quotes in request"},
	}
	for _, tt := range tests {
		got, err := readAll(tt.in)
		if tt.err != "" {
			var perr ProtocolError
			if !errors.As(err, &perr) || perr.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// A bulk header alone must not make the reader reserve its size.
func TestReaderDoesNotTrustBulkHeaders(t *testing.T) {
	r := NewReader(strings.NewReader("*1\r\n$400000000\r\nabc"))
	if _, err := r.ReadCommand(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v, want unexpected EOF", err)
	}
	if c := cap(r.buf); c > 4<<20 {
		t.Fatalf("reader reserved %d bytes for a 3-byte body", c)
	}
}

func encode(args [][]byte) []byte {
	enc := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		enc = append(enc, "$"+strconv.Itoa(len(a))+"\r\n"...)
		enc = append(enc, a...)
		enc = append(enc, "\r\n"...)
	}
	return enc
}

// FuzzReader feeds arbitrary bytes to the reader: it must never panic, and
// every command it returns must survive a round trip through RESP.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"*1\r\n$4\r\nPING\r\n", "PING\r\n", "*2\r\n$1\r\na\r\n$0\r\n\r\n", "a 'b' \"c\\x00\"\r\n", "*-1\r\n", "$5\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in))
		r.MaxBulkLen = 1 << 16
		for range 100 {
			args, err := r.ReadCommand()
			if err != nil {
				return
			}
			back, err := NewReader(bytes.NewReader(encode(args))).ReadCommand()
			if err != nil || !slices.EqualFunc(back, args, bytes.Equal) {
				t.Fatalf("round trip of %q: %q, %v", args, back, err)
			}
		}
	})
}
