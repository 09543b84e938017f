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
		{in: "*2147483648\r\n", err: "ERR Protocol error: invalid multibulk length"},
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

// TestReaderLimits: Redis 7.0.15's limits, as redis-server answers the
// same bytes sent at once: up to 2^31-1 words; a line with no end is an
// error once a read brings it past 64 KiB (so a line end within that read
// still counts); a client that owes AUTH may send 10 words of 16 KiB.
func TestReaderLimits(t *testing.T) {
	echo := func(n int) string { return "ECHO " + strings.Repeat("a", n-5) }
	tests := []struct {
		name   string
		in     string
		unauth bool
		words  int    // words of the one command, when it is accepted
		err    string // the protocol error, or "EOF" for a request left unfinished
	}{
		{"2^31-1 words", "*2147483647\r\n", false, 0, "EOF"},
		{"1,100,000 words", "*1100000\r\n" + strings.Repeat("$1\r\na\r\n", 1100000), false, 1100000, ""},
		{"inline 65536 and CRLF", echo(65536) + "\r\n", false, 2, ""},
		{"inline 70000 and CRLF", echo(70000) + "\r\n", false, 2, ""},
		{"inline 81918 and CRLF", echo(81918) + "\r\n", false, 2, ""},
		{"inline 81919 and CRLF", echo(81919) + "\r\n", false, 0, "ERR Protocol error: too big inline request"},
		{"inline 65536, no end", echo(65536), false, 0, "EOF"},
		{"inline 65537, no end", echo(65537), false, 0, "ERR Protocol error: too big inline request"},
		{"count line 65537", "*" + strings.Repeat("1", 65536) + "\r\n", false, 0, "ERR Protocol error: invalid multibulk length"},
		{"count line, no end", "*" + strings.Repeat("1", 65536), false, 0, "ERR Protocol error: too big mbulk count string"},
		{"bulk line, no end", "*1\r\n$" + strings.Repeat("1", 65536), false, 0, "ERR Protocol error: too big bulk count string"},
		{"unauthenticated 10 words", "*10\r\n" + strings.Repeat("$1\r\na\r\n", 10), true, 10, ""},
		{"unauthenticated 11 words", "*11\r\n", true, 0, "ERR Protocol error: unauthenticated multibulk length"},
		{"unauthenticated 16384 bytes", "*1\r\n$16384\r\n" + strings.Repeat("a", 16384) + "\r\n", true, 1, ""},
		{"unauthenticated 16385 bytes", "*1\r\n$16385\r\n", true, 0, "ERR Protocol error: unauthenticated bulk length"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in))
			r.Unauthenticated = tt.unauth
			args, err := r.ReadCommand()
			switch {
			case tt.err == "EOF":
				if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
					t.Fatalf("got %d words, %v; want to wait for more", len(args), err)
				}
			case tt.err != "":
				var perr ProtocolError
				if !errors.As(err, &perr) || perr.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
			case err != nil || len(args) != tt.words:
				t.Fatalf("got %d words, %v; want %d", len(args), err, tt.words)
			}
		})
	}
}

// A big bulk costs its size, not the doubling's overshoot, and is not
// kept once the next command is read.
func TestReaderBigBulkBuffer(t *testing.T) {
	const size = 40 << 20
	in := "*2\r\n$4\r\nECHO\r\n$" + strconv.Itoa(size) + "\r\n" + strings.Repeat("x", size) + "\r\n*1\r\n$4\r\nPING\r\n"
	r := NewReader(strings.NewReader(in))
	args, err := r.ReadCommand()
	if err != nil || len(args) != 2 || len(args[1]) != size {
		t.Fatalf("got %d words, %v", len(args), err)
	}
	if c := cap(r.buf); c > size+16 {
		t.Errorf("buffer of %d bytes for a %d-byte bulk", c, size)
	}
	if _, err := r.ReadCommand(); err != nil {
		t.Fatal(err)
	}
	if c := cap(r.buf); c > keepBuf {
		t.Errorf("the big bulk's buffer (%d bytes) is still held", c)
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
