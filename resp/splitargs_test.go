package resp

import (
	"reflect"
	"testing"
)

// TestSplitArgs: the words sdssplitargs finds in inline commands and
// config lines, and the lines it refuses.
func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string // nil with ok false: refused
		ok   bool
	}{
		{"", nil, true},
		{"   \t ", nil, true},
		{"SET k v", []string{"SET", "k", "v"}, true},
		{`dbfilename "d\x41"`, []string{"dbfilename", "dA"}, true},
		{`"\n\r\t\b\a\z\\\""`, []string{"\n\r\t\b\a" + `z\"`}, true},
		{`"\x4" "\xzz"`, []string{"x4", "xzz"}, true},
		{`'it\'s' 'a\nb'`, []string{"it's", `a\nb`}, true},
		{`a"b c"`, []string{"ab c"}, true},
		{`"" ''`, []string{"", ""}, true},
		{"a\x00b", []string{"a", "b"}, true},
		{`"unterminated`, nil, false},
		{`'unterminated`, nil, false},
		{`"closed"next`, nil, false},
		{`'closed'next`, nil, false},
	}
	for _, tc := range tests {
		got, ok := SplitArgs([]byte(tc.in))
		var words []string
		for _, w := range got {
			words = append(words, string(w))
		}
		if ok != tc.ok || !reflect.DeepEqual(words, tc.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q, %v", tc.in, words, ok, tc.want, tc.ok)
		}
	}
}
