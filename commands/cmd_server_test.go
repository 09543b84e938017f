package commands

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// infoFields parses an INFO reply into its sections and fields.
func infoFields(t *testing.T, reply string) (sections []string, fields map[string]string) {
	t.Helper()
	body := bulkText(reply)
	if strings.HasPrefix(reply, "=") {
		body = strings.TrimPrefix(body, "txt:")
	}
	fields = map[string]string{}
	for _, line := range strings.Split(body, "\r\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			sections = append(sections, line[2:])
		case line == "":
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				t.Fatalf("INFO line %q has no ':'", line)
			}
			fields[k] = v
		}
	}
	return sections, fields
}

func TestInfo(t *testing.T) {
	s := newSession(t)
	s.line("GEOADD drivers 4.8952 52.3702 d1 -74.006 40.7128 d2")
	s.line("GEOSEARCH drivers FROMLONLAT 4.9 52.37 BYRADIUS 5 km ASC")
	s.line("SET k v")
	s.line("EXPIRE k 100")
	s.line("NOSUCHCOMMAND")
	s.line("ZADD drivers x m")

	sections, f := infoFields(t, s.line("INFO"))
	want := "Server Clients Memory Persistence Stats Replication CPU Modules Errorstats Cluster Keyspace Shards"
	if got := strings.Join(sections, " "); got != want {
		t.Errorf("INFO sections %q, want %q", got, want)
	}
	for k, v := range map[string]string{
		"redis_version": "7.0.15", "geoshard_version": GeoshardVersion, "connected_clients": "1",
		"db0": "keys=2,expires=1,avg_ttl=0", "cluster_enabled": "0", "role": "master",
		"total_connections_received": "1", "total_error_replies": "1", "shards": strconv.Itoa(s.e.Router().Regions().Len()),
	} {
		if f[k] != v {
			t.Errorf("INFO %s = %q, want %q", k, f[k], v)
		}
	}
	for _, k := range []string{"used_memory", "used_memory_rss", "process_id", "uptime_in_seconds", "total_commands_processed"} {
		if n, err := strconv.ParseInt(f[k], 10, 64); err != nil || n < 0 {
			t.Errorf("INFO %s = %q, want a count", k, f[k])
		}
	}
	for _, k := range []string{"used_cpu_sys", "used_cpu_user"} {
		if x, err := strconv.ParseFloat(f[k], 64); err != nil || x < 0 {
			t.Errorf("INFO %s = %q, want seconds", k, f[k])
		}
	}
	shardLine := regexp.MustCompile(`^members=(\d+),writes=(\d+),handoffs_in=\d+,handoffs_out=\d+,searches=(\d+),degraded=\d+,expired=\d+$`)
	members, writes, searches := 0, 0, 0
	for k, v := range f {
		if !strings.HasPrefix(k, "shard_") {
			continue
		}
		m := shardLine.FindStringSubmatch(v)
		if m == nil {
			t.Fatalf("INFO %s:%s is not a shard line", k, v)
		}
		n, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		q, _ := strconv.Atoi(m[3])
		members, writes, searches = members+n, writes+w, searches+q
	}
	if members != 2 || writes != 2 || searches < 1 {
		t.Errorf("shard lines sum to members=%d writes=%d searches=%d, want 2, 2, >=1", members, writes, searches)
	}
	if !regexp.MustCompile(`^1=1,2=0,3=0,4=0,5=0,6=0,7=0,8\+=0$`).MatchString(f["searches_by_shards"]) {
		t.Errorf("searches_by_shards = %q", f["searches_by_shards"])
	}

	sections, f = infoFields(t, s.line("INFO commandstats cpu"))
	if strings.Join(sections, " ") != "CPU Commandstats" {
		t.Errorf("INFO commandstats cpu gave sections %q", sections)
	}
	if v := f["cmdstat_zadd"]; !regexp.MustCompile(`^calls=1,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=1$`).MatchString(v) {
		t.Errorf("cmdstat_zadd = %q", v)
	}
	s.line("HELLO 3")
	if got := s.line("INFO nosuchsection"); got != "=4\r\ntxt:\r\n" {
		t.Errorf("INFO of no section in RESP3 = %q", got)
	}
	s.line("CONFIG RESETSTAT")
	_, f = infoFields(t, s.line("INFO stats commandstats"))
	if f["total_error_replies"] != "0" || f["cmdstat_zadd"] != "" {
		t.Errorf("after CONFIG RESETSTAT: %v", f)
	}
}

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

func TestConfig(t *testing.T) {
	s := newSession(t)
	a, b := "1", "2"
	s.e.config.Add(&Setting{Name: "alpha", Get: func() string { return a }, Set: func(v string) error { a = v; return nil }})
	s.e.config.Add(&Setting{Name: "beta", Get: func() string { return b }, Set: func(v string) error {
		if v == "bad" {
			return errors.New("argument must be good")
		}
		b = v
		return nil
	}})
	s.e.config.Add(&Setting{Name: "fixed", Get: func() string { return "f" }})
	s.run([]step{
		{"CONFIG GET *a", "*4\r\n$5\r\nalpha\r\n$1\r\n1\r\n$4\r\nbeta\r\n$1\r\n2\r\n"},
		{"CONFIG GET ALPHA", "*2\r\n$5\r\nALPHA\r\n$1\r\n1\r\n"},
		{"CONFIG SET alpha 9 beta 8", "+OK\r\n"},
		{"CONFIG GET alpha beta", "*4\r\n$5\r\nalpha\r\n$1\r\n9\r\n$4\r\nbeta\r\n$1\r\n8\r\n"},
		{"CONFIG SET alpha 5 beta bad", "-ERR CONFIG SET failed (possibly related to argument 'beta') - argument must be good\r\n"},
		{"CONFIG GET alpha", "*2\r\n$5\r\nalpha\r\n$1\r\n9\r\n"},
		{"CONFIG SET fixed 1", "-ERR CONFIG SET failed (possibly related to argument 'fixed') - can't set immutable config\r\n"},
		{"CONFIG SET alpha 1 ALPHA 2", "-ERR CONFIG SET failed (possibly related to argument 'ALPHA') - duplicate parameter\r\n"},
		{"CONFIG SET nope 1 fixed 2", "-ERR Unknown option or number of arguments for CONFIG SET - 'nope'\r\n"},
		{"CONFIG REWRITE", "-ERR The server is running without a config file\r\n"},
	})
}

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
