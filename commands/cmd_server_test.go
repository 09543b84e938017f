package commands

import (
	"strconv"
	"testing"
)

func TestTimeAndDebug(t *testing.T) {
	s := newSession(t)
	r, _ := parseReply(s.line("TIME"))
	if len(r.kids) != 2 {
		t.Fatalf("TIME = %q", r.raw)
	}
	sec, err1 := strconv.ParseInt(bulkText(r.kids[0].raw), 10, 64)
	usec, err2 := strconv.ParseInt(bulkText(r.kids[1].raw), 10, 64)
	if err1 != nil || err2 != nil || sec < 1e9 || usec < 0 || usec >= 1e6 {
		t.Errorf("TIME = %q", r.raw)
	}
	s.run([]step{
		{"DEBUG SLEEP 0", "+OK\r\n"},
		{"debug jmap", "-ERR unknown subcommand or wrong number of arguments for 'jmap'. Try DEBUG HELP.\r\n"},
		{"FUNCTION FLUSH ASYNC", "+OK\r\n"},
	})
}
