package commands

import (
	"strconv"
	"strings"
	"testing"
)

func TestCommandIntrospection(t *testing.T) {
	s := newSession(t)
	if got, want := s.line("COMMAND COUNT"), ":"+strconv.Itoa(len(table))+"\r\n"; got != want {
		t.Errorf("COMMAND COUNT = %q, want %q", got, want)
	}
	all, _ := parseReply(s.line("COMMAND"))
	if len(all.kids) != len(table) {
		t.Fatalf("COMMAND lists %d commands, want %d", len(all.kids), len(table))
	}
	// What redis-cli reads: name, arity, first key.
	for _, c := range all.kids {
		if len(c.kids) != 10 || c.kids[0].raw[0] != '$' || c.kids[1].raw[0] != ':' || c.kids[3].raw[0] != ':' {
			t.Fatalf("COMMAND entry %.80q is not what redis-cli reads", c.raw)
		}
	}
	list, _ := parseReply(s.line("COMMAND LIST"))
	names := map[string]bool{}
	for _, k := range list.kids {
		names[bulkText(k.raw)] = true
	}
	for _, n := range []string{"zadd", "geosearch", "client|setinfo", "config|get", "command|docs", "function|flush"} {
		if !names[n] {
			t.Errorf("COMMAND LIST lacks %s", n)
		}
	}
	docs, _ := parseReply(s.line("COMMAND DOCS client"))
	if len(docs.kids) != 2 || !strings.Contains(docs.raw, "$11\r\nsubcommands\r\n") || !strings.Contains(docs.raw, "$14\r\nclient|setname\r\n") {
		t.Errorf("COMMAND DOCS client: %.200q", docs.raw)
	}
	if got := s.line("COMMAND LIST FILTERBY ACLCAT transaction"); got != "*3\r\n$7\r\ndiscard\r\n$4\r\nexec\r\n$5\r\nmulti\r\n" {
		t.Errorf("COMMAND LIST FILTERBY ACLCAT transaction = %q", got)
	}
}
