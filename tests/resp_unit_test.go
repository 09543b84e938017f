package tests

import "testing"

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
