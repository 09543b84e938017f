package server

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestSplitLine(t *testing.T) {
	cases := []struct {
		line string
		want []string
		bad  bool
	}{
		{"", nil, false},
		{"   # comment", nil, false},
		{"port 6379", []string{"port", "6379"}, false},
		{"  bind 127.0.0.1   ::1  \r", []string{"bind", "127.0.0.1", "::1"}, false},
		{`requirepass "a b"`, []string{"requirepass", "a b"}, false},
		{`requirepass "q\"x\\y\n"`, []string{"requirepass", "q\"x\\y\n"}, false},
		{`requirepass 'it\'s'`, []string{"requirepass", "it's"}, false},
		{`save ""`, []string{"save", ""}, false},
		{`requirepass "open`, nil, true},
		{`requirepass "a"b`, nil, true},
		{"requirepass a#b", []string{"requirepass", "a#b"}, false},
		{`dbfilename "d\x41"`, []string{"dbfilename", "dA"}, false}, // Redis reads \xHH too
	}
	for _, c := range cases {
		got, err := splitLine(c.line)
		if (err != nil) != c.bad || (!c.bad && !reflect.DeepEqual(got, c.want)) {
			t.Errorf("splitLine(%q) = %q, %v; want %q (error: %v)", c.line, got, err, c.want, c.bad)
		}
	}
}

func TestQuoteWordRoundTrip(t *testing.T) {
	for _, w := range []string{"", "plain", "a b", `"`, `\`, "tab\there", "new\nline", "#hash", "it's", "x\r"} {
		got, err := splitLine("k " + quoteWord(w))
		if err != nil || len(got) != 2 || got[1] != w {
			t.Errorf("quoteWord(%q) = %s reads back as %q, %v", w, quoteWord(w), got, err)
		}
	}
}

func TestParseArgs(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "g.conf")
	body := "# c\nport 7000\nmaxmemory 2mb\nclient-output-buffer-limit normal 10mb 5mb 30 pubsub 32mb 8mb 60\n" +
		"protected-mode no\ntls-auth-clients optional\ngc-percent 50\ngc-min-percent 5\ngc-trim no\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := ParseArgs([]string{conf, "--port", "7001", "--bind", "127.0.0.1", "::1", "--metrics-port", "9121"})
	if err != nil {
		t.Fatal(err)
	}
	want := Defaults()
	want.ConfigFile = conf
	want.Port = 7001
	want.Bind = []string{"127.0.0.1", "::1"}
	want.MaxMemory = 2 << 20
	want.OutputLimit = OutputLimit{Hard: 10 << 20, Soft: 5 << 20, SoftTime: 30 * time.Second}
	want.ProtectedMode = false
	want.TLSAuthClients = "optional"
	want.MetricsPort = 9121
	want.GCPercent = 50
	want.GCMinPercent = 5
	want.GCTrim = false
	if !reflect.DeepEqual(o, want) {
		t.Errorf("ParseArgs:\n got %+v\nwant %+v", o, want)
	}
	bad := [][]string{
		{"--port", "70000"},
		{"--nosuch", "1"},
		{"--protected-mode", "maybe"},
		{"--client-output-buffer-limit", "normal", "1", "2"},
		{"--client-output-buffer-limit", "weird", "1", "2", "3"},
		{"--tls-auth-clients", "sometimes"},
		{"--map-tiles", "ftp://tiles.example/{z}/{x}/{y}.png"},
		{"--map-tiles", "https://tiles.example/{z}.png"},
		{"--maxmemory", "-1"},
		{"--gc-percent", "0"},
		{"--gc-min-percent", "0"},
		{"--gc-trim", "maybe"},
		{"--proto-max-bulk-len", "1kb"},
		{"port", "1"},
	}
	for _, args := range bad {
		if _, err := ParseArgs(args); err == nil {
			t.Errorf("ParseArgs(%q) accepted", args)
		}
	}
}

func TestDirectivesReadBack(t *testing.T) {
	// Every directive's value, as written, must parse back to itself:
	// CONFIG REWRITE depends on it.
	o := Defaults()
	for _, d := range directives {
		if d.get(&o) == "" && d.name != "requirepass" {
			// An empty default means "built in" (dbfilename); it is
			// never written unless the file had it.
			continue
		}
		line := formatDirective(&d, d.get(&o))
		words, err := splitLine(line)
		if err != nil {
			t.Errorf("%s: %q does not split: %v", d.name, line, err)
			continue
		}
		var back Options = Defaults()
		if err := back.Set(words[0], words[1:]); err != nil {
			t.Errorf("%s: %q does not parse back: %v", d.name, line, err)
			continue
		}
		if got := d.get(&back); got != d.get(&o) {
			t.Errorf("%s: %q reads back as %q", d.name, d.get(&o), got)
		}
	}
}

// TestParseSeconds: NaN and values that would round to 0 ("never") are
// refused for position-ttl and timeout.
func TestParseSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		bad  bool
	}{
		{"0", 0, false},
		{"1.5", 1500 * time.Millisecond, false},
		{"0.001", time.Millisecond, false},
		{"NaN", 0, true},
		{"-nan", 0, true},
		{"inf", 0, true},
		{"1e-12", 0, true},
		{"-1", 0, true},
		{"1e10", 0, true},
	} {
		got, err := parseSeconds(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("parseSeconds(%q) = %v, %v; want %v, bad %v", tc.in, got, err, tc.want, tc.bad)
		}
	}
}
