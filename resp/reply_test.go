package resp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
)

// readOne runs ReadReply on in through a reader of the given buffer size
// (16 is bufio's least, so long lines arrive in pieces).
func readOne(in string, size int) ([]byte, *bufio.Reader, error) {
	br := bufio.NewReaderSize(strings.NewReader(in), size)
	raw, err := ReadReply(br, []byte("prefix"))
	if !bytes.HasPrefix(raw, []byte("prefix")) {
		panic("ReadReply dropped the buffer it was given")
	}
	return raw[len("prefix"):], br, err
}

// TestReadReply reads every RESP2/RESP3 type: each input holds one reply
// followed by "+NEXT\r\n", which must be left unread; the reply's bytes
// are appended to the buffer given, and ParseReply decodes them.
func TestReadReply(t *testing.T) {
	long := strings.Repeat("x", 5000)
	tests := []struct {
		in   string
		want any
	}{
		{"+OK\r\n", "OK"},
		{"-ERR syntax error\r\n", ReplyError("ERR syntax error")},
		{":-42\r\n", int64(-42)},
		{":-9223372036854775808\r\n", int64(math.MinInt64)},
		{"$5\r\nhe\r\no\r\n", "he\r\no"},
		{"$0\r\n\r\n", ""},
		{"$-1\r\n", nil},
		{"*-1\r\n", nil},
		{"*0\r\n", []any{}},
		{"*2\r\n$1\r\na\r\n*1\r\n:1\r\n", []any{"a", []any{int64(1)}}},
		{"_\r\n", nil},
		{",13.36138933897018433\r\n", 13.36138933897018433},
		{",-inf\r\n", math.Inf(-1)},
		{",1e400\r\n", math.Inf(1)},
		{"#t\r\n", true},
		{"#f\r\n", false},
		{"!10\r\nSYNTAX bad\r\n", ReplyError("SYNTAX bad")},
		{"=15\r\ntxt:Some string\r\n", "Some string"},
		{"(-3492890328409238509324850943850943825024385\r\n", bigInt("-3492890328409238509324850943850943825024385")},
		{"%2\r\n+a\r\n:1\r\n+b\r\n_\r\n", []KV{{"a", int64(1)}, {"b", nil}}},
		{"~2\r\n+a\r\n+b\r\n", []any{"a", "b"}},
		{">3\r\n+message\r\n+chan\r\n$2\r\nhi\r\n", []any{"message", "chan", "hi"}},
		{"|1\r\n+ttl\r\n:3600\r\n$3\r\nabc\r\n", "abc"},
		{"$4\r\n\x00\r\n\xff\r\n", "\x00\r\n\xff"},
		{"$5000\r\n" + long + "\r\n", long},
		{"+" + long + "\r\n", long},
		{"*1\r\n*1\r\n*1\r\n*0\r\n", []any{[]any{[]any{[]any{}}}}},
	}
	for _, tc := range tests {
		for _, size := range []int{16, 4096} {
			raw, br, err := readOne(tc.in+"+NEXT\r\n", size)
			if err != nil {
				t.Errorf("ReadReply(%.40q): %v", tc.in, err)
				continue
			}
			if string(raw) != tc.in {
				t.Errorf("ReadReply(%.40q) = %.40q", tc.in, raw)
			}
			if rest, _ := io.ReadAll(br); string(rest) != "+NEXT\r\n" {
				t.Errorf("ReadReply(%.40q) left %q unread", tc.in, rest)
			}
		}
		got, err := ParseReply([]byte(tc.in))
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseReply(%.40q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

func bigInt(s string) *big.Int {
	n, _ := new(big.Int).SetString(s, 10)
	return n
}

// TestReadReplyMalformed: bad framing is ErrMalformed to both readers,
// and a reply cut short is EOF to ReadReply.
func TestReadReplyMalformed(t *testing.T) {
	malformed := []string{
		"+OK\n",
		"?x\r\n",
		":abc\r\n",
		":9223372036854775808\r\n",
		"$3\r\nabcd\r\n",
		"$-2\r\n",
		"*-2\r\n",
		"%-1\r\n",
		"!-1\r\n",
		"$1x\r\n",
		"$+1\r\n",
		"_x\r\n",
		"#x\r\n",
		",\r\n",
		",1_0\r\n",
		"(12a\r\n",
		"\r\n",
		"*1\r\n+a\nb\r\n",
		strings.Repeat("*1\r\n", maxReplyDepth+2) + ":1\r\n",
		"$999999999999999999\r\n",
	}
	for _, in := range malformed {
		if _, _, err := readOne(in, 4096); !errors.Is(err, ErrMalformed) {
			t.Errorf("ReadReply(%.40q) error = %v, want malformed", in, err)
		}
		if _, err := ParseReply([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseReply(%.40q) error = %v, want malformed", in, err)
		}
	}
	truncated := []string{"$5\r\nab", "*2\r\n:1\r\n", "+OK", "", "*3000000000\r\n"}
	for _, in := range truncated {
		_, _, err := readOne(in, 4096)
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("ReadReply(%q) error = %v, want EOF", in, err)
		}
		if _, err := ParseReply([]byte(in)); !errors.Is(err, ErrMalformed) {
			t.Errorf("ParseReply(%q) error = %v, want malformed", in, err)
		}
	}
	if _, err := ParseReply([]byte("+OK\r\n+OK\r\n")); !errors.Is(err, ErrMalformed) {
		t.Errorf("ParseReply of two replies: error = %v, want malformed", err)
	}
}

func TestSplitReply(t *testing.T) {
	tests := []struct {
		in     string
		header string
		elems  []string
		bad    bool
	}{
		{in: "*0\r\n", header: "*0\r\n"},
		{in: "*-1\r\n", header: "*-1\r\n"},
		{in: "*2\r\n$1\r\na\r\n*1\r\n:1\r\n", header: "*2\r\n", elems: []string{"$1\r\na\r\n", "*1\r\n:1\r\n"}},
		{in: "%1\r\n+k\r\n_\r\n", header: "%1\r\n", elems: []string{"+k\r\n", "_\r\n"}},
		{in: "~1\r\n|1\r\n+a\r\n+b\r\n:1\r\n", header: "~1\r\n", elems: []string{"|1\r\n+a\r\n+b\r\n:1\r\n"}},
		{in: "+OK\r\n", bad: true},
		{in: "*1\r\n:1\r\n:2\r\n", bad: true},
		{in: "*2\r\n:1\r\n", bad: true},
	}
	for _, tc := range tests {
		header, elems, err := SplitReply([]byte(tc.in))
		if tc.bad {
			if err == nil {
				t.Errorf("SplitReply(%q) = %q, %q; want an error", tc.in, header, elems)
			}
			continue
		}
		got := make([]string, len(elems))
		for i, e := range elems {
			got[i] = string(e)
		}
		if err != nil || string(header) != tc.header || strings.Join(got, "|") != strings.Join(tc.elems, "|") {
			t.Errorf("SplitReply(%q) = %q, %q, %v; want %q, %q", tc.in, header, got, err, tc.header, tc.elems)
		}
	}
}

// FuzzReply: neither reader panics; they agree on what one reply is (and
// ReadReply agrees with itself whether the reply is whole in its buffer or
// arrives in pieces), and
// SplitReply gives back exactly the bytes it was handed.
func FuzzReply(f *testing.F) {
	for _, s := range []string{
		"+OK\r\n", "*2\r\n$1\r\na\r\n%1\r\n+k\r\n,1.5\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n",
		"=7\r\ntxt:abc\r\n", "(123\r\n", ">1\r\n#t\r\n", "$-1\r\n", "*1\r\n*1\r\n_\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		raw, err := ReadReply(bufio.NewReaderSize(bytes.NewReader(in), 16), nil)
		whole, werr := ReadReply(bufio.NewReaderSize(bytes.NewReader(in), 1<<16), nil)
		if (err == nil) != (werr == nil) || (err == nil && !bytes.Equal(raw, whole)) {
			t.Fatalf("ReadReply(%q) by pieces = %q, %v; from one buffer = %q, %v", in, raw, err, whole, werr)
		}
		parsed, perr := ParseReply(in)
		if err != nil {
			if perr == nil {
				t.Fatalf("ParseReply accepts %q, ReadReply says %v", in, err)
			}
			return
		}
		if !bytes.HasPrefix(in, raw) {
			t.Fatalf("ReadReply(%q) = %q, not a prefix", in, raw)
		}
		v, err := ParseReply(raw)
		if err != nil {
			t.Fatalf("ReadReply accepts %q, ParseReply says %v", raw, err)
		}
		if len(raw) == len(in) && !reflect.DeepEqual(v, parsed) {
			t.Fatalf("ParseReply(%q) differs between calls: %#v, %#v", in, v, parsed)
		}
		if !isAggregate(raw[0]) || raw[0] == '|' {
			return
		}
		header, elems, err := SplitReply(raw)
		if err != nil {
			t.Fatalf("SplitReply(%q): %v", raw, err)
		}
		if joined := append(header, bytes.Join(elems, nil)...); !bytes.Equal(joined, raw) {
			t.Fatalf("SplitReply(%q) pieces join to %q", raw, joined)
		}
	})
}
