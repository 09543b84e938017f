package commands

import (
	"regexp"
	"strings"
	"testing"
)

func TestConnReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pass  string
		steps []step
	}{
		{"no password", "", []step{
			{"PING", "+PONG\r\n"},
			{"AUTH x", "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?\r\n"},
			{"AUTH default anything", "+OK\r\n"},
			{"AUTH other x", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
			{"HELLO 4", "-NOPROTO unsupported protocol version\r\n"},
			{"HELLO 2 SETNAME me FOO", "-ERR Syntax error in HELLO option 'FOO'\r\n"},
			{"CLIENT GETNAME", "$2\r\nme\r\n"},
			{"CLIENT ID", ":1\r\n"},
		}},
		{"password", "sekret", []step{
			{"PING", "-NOAUTH Authentication required.\r\n"},
			{"CLIENT ID", "-NOAUTH Authentication required.\r\n"},
			{"HELLO 3", "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"},
			{"AUTH wrong", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
			{"AUTH default sekre", "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
			{"AUTH sekret", "+OK\r\n"},
			{"PING", "+PONG\r\n"},
			{"RESET", "+RESET\r\n"},
			{"PING", "-NOAUTH Authentication required.\r\n"},
			{"HELLO 2 AUTH default sekret", "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:2\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
			{"ECHO hi", "$2\r\nhi\r\n"},
		}},
		{"reset", "", []step{
			{"HELLO 3 SETNAME me", "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:1\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n"},
			{"SELECT 4", "+OK\r\n"},
			{"MULTI", "+OK\r\n"},
			{"RESET", "+RESET\r\n"},
			{"CLIENT GETNAME", "$-1\r\n"},
			{"EXEC", "-ERR EXEC without MULTI\r\n"},
			{"SET k v", "+OK\r\n"},
			{"SELECT 4", "+OK\r\n"},
			{"EXISTS k", ":0\r\n"},
		}},
		{"setinfo", "", []step{
			{"CLIENT SETINFO LIB-NAME go-redis(,go1.26)", "+OK\r\n"},
			{"CLIENT SETINFO lib-ver 9.7.0", "+OK\r\n"},
			{"CLIENT SETINFO lib-foo x", "-ERR Unrecognized option 'lib-foo'\r\n"},
			{"CLIENT SETINFO lib-name", "-ERR wrong number of arguments for 'client|setinfo' command\r\n"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession(t)
			s.e.config.SetRequirePass(tc.pass)
			s.c.authenticated = tc.pass == "" // as if it connected after the password was set
			s.run(tc.steps)
		})
	}
}

func TestQuit(t *testing.T) {
	s := newSession(t)
	if got := s.line("QUIT"); got != "+OK\r\n" || !s.c.Quit() {
		t.Fatalf("QUIT: %q, Quit() = %v", got, s.c.Quit())
	}
}

var clientLineRE = regexp.MustCompile(`^id=(\d+) addr=(\S+) laddr=(\S+) fd=-1 name=(\S*) age=\d+ idle=\d+ flags=([Nx]) db=(\d+) sub=0 psub=0 ssub=0 multi=(-?\d+) qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r cmd=(\S+) user=default redir=-1 resp=([23])$`)

func TestClientList(t *testing.T) {
	a := newSession(t)
	b := a.another()
	a.line("CLIENT SETNAME alpha")
	b.line("SELECT 7")
	b.line("HELLO 3")
	b.line("MULTI")
	b.line("PING")
	out := a.line("CLIENT LIST")
	body := bulkText(out)
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("CLIENT LIST has %d lines: %q", len(lines), out)
	}
	want := [][]string{
		{"1", "127.0.0.1:50000", "127.0.0.1:6379", "alpha", "N", "0", "-1", "client|list", "2"},
		{"2", "127.0.0.1:50001", "127.0.0.1:6379", "", "x", "7", "1", "ping", "3"},
	}
	for i, line := range lines {
		m := clientLineRE.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %q does not match Redis's format", line)
		}
		if strings.Join(m[1:], " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d fields %q, want %q", i, m[1:], want[i])
		}
	}
	if got := a.line("CLIENT LIST ID 2 99"); !strings.HasPrefix(bulkText(got), "id=2 ") || strings.Count(bulkText(got), "\n") != 1 {
		t.Errorf("CLIENT LIST ID 2 99: %q", got)
	}
	if got := b.line("CLIENT INFO"); !strings.HasPrefix(got, "+QUEUED") {
		t.Errorf("CLIENT INFO inside MULTI: %q", got)
	}
	b.line("DISCARD")
	info := b.line("CLIENT INFO")
	if !strings.HasPrefix(info, "=") || !clientLineRE.MatchString(strings.TrimSuffix(strings.SplitN(info, "txt:", 2)[1], "\n\r\n")) {
		t.Errorf("CLIENT INFO in RESP3: %q", info)
	}
}
