package tests

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"
)

// TestReadReply checks the raw reader on every RESP2/RESP3 type: each input
// holds one reply followed by "+NEXT\r\n", which must be left unread.
func TestReadReply(t *testing.T) {
	valid := []string{
		"+OK\r\n",
		"-ERR syntax error\r\n",
		":-42\r\n",
		"$5\r\nhe\r\no\r\n",
		"$0\r\n\r\n",
		"$-1\r\n",
		"*-1\r\n",
		"*0\r\n",
		"*2\r\n$1\r\na\r\n*1\r\n:1\r\n",
		"_\r\n",
		",13.36138933897018433\r\n",
		",-inf\r\n",
		"#t\r\n",
		"!10\r\nSYNTAX bad\r\n",
		"=15\r\ntxt:Some string\r\n",
		"(3492890328409238509324850943850943825024385\r\n",
		"%2\r\n+a\r\n:1\r\n+b\r\n_\r\n",
		"~2\r\n+a\r\n+b\r\n",
		">3\r\n+message\r\n+chan\r\n$2\r\nhi\r\n",
		"|1\r\n+ttl\r\n:3600\r\n$3\r\nabc\r\n",
		"$4\r\n\x00\r\n\xff\r\n",
	}
	for _, in := range valid {
		br := bufio.NewReader(bytes.NewReader([]byte(in + "+NEXT\r\n")))
		got, err := readReply(br)
		if err != nil {
			t.Errorf("readReply(%q): %v", in, err)
			continue
		}
		if string(got) != in {
			t.Errorf("readReply(%q) = %q", in, got)
		}
		rest, _ := io.ReadAll(br)
		if string(rest) != "+NEXT\r\n" {
			t.Errorf("readReply(%q) left %q unread", in, rest)
		}
	}

	malformed := []string{
		"+OK\n",
		"?x\r\n",
		":abc\r\n",
		"$3\r\nabcd\r\n",
		"$-2\r\n",
		"*-2\r\n",
		"%-1\r\n",
		"_x\r\n",
		"#x\r\n",
		",\r\n",
		"\r\n",
	}
	for _, in := range malformed {
		_, err := readReply(bufio.NewReader(bytes.NewReader([]byte(in))))
		if !errors.Is(err, errMalformed) {
			t.Errorf("readReply(%q) error = %v, want malformed", in, err)
		}
	}

	truncated := []string{"$5\r\nab", "*2\r\n:1\r\n", "+OK", ""}
	for _, in := range truncated {
		_, err := readReply(bufio.NewReader(bytes.NewReader([]byte(in))))
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("readReply(%q) error = %v, want EOF", in, err)
		}
	}
}

func TestEncodeCommand(t *testing.T) {
	got := string(encodeCommand(nil, []string{"GEOADD", "k", "", "a\r\nb"}))
	want := "*4\r\n$6\r\nGEOADD\r\n$1\r\nk\r\n$0\r\n\r\n$4\r\na\r\nb\r\n"
	if got != want {
		t.Fatalf("encodeCommand = %q, want %q", got, want)
	}
}

// TestReplyComparison makes sure the comparison used by the differential
// tests can fail, and that its only tolerances are the documented ones.
func TestReplyComparison(t *testing.T) {
	cases := []struct {
		cmd  []string
		a, b string
		same bool
	}{
		{[]string{"GEODIST", "k", "a", "b"}, "$6\r\n1.0000\r\n", "$6\r\n1.0001\r\n", false},
		{[]string{"GEOPOS", "k", "a"}, "*1\r\n*-1\r\n", "*1\r\n$-1\r\n", false},
		{[]string{"ZSCORE", "k", "a"}, ",1\r\n", "$1\r\n1\r\n", false},
		{[]string{"KEYS", "*"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", true},
		{[]string{"KEYS", "*"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\na\r\n$1\r\nc\r\n", false},
		{[]string{"TTL", "k"}, ":100000\r\n", ":99999\r\n", true},
		{[]string{"TTL", "k"}, ":-1\r\n", ":-2\r\n", false},
		{[]string{"TTL", "k"}, ":100000\r\n", ":-1\r\n", false},
		{[]string{"PTTL", "k"}, ":100000000\r\n", ":99999000\r\n", true},
		{[]string{"PTTL", "k"}, ":100000000\r\n", ":90000000\r\n", false},
		{[]string{"GEOSEARCH", "k"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", false},
	}
	for _, c := range cases {
		if got := sameReply(c.cmd, []byte(c.a), []byte(c.b)); got != c.same {
			t.Errorf("sameReply(%v, %q, %q) = %v, want %v", c.cmd, c.a, c.b, got, c.same)
		}
	}
}
