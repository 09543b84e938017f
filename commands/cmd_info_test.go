package commands

import (
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
		"cluster_enabled": "0", "role": "master",
		"total_connections_received": "1", "total_error_replies": "1", "shards": strconv.Itoa(s.e.Router().Regions().Len()),
	} {
		if f[k] != v {
			t.Errorf("INFO %s = %q, want %q", k, f[k], v)
		}
	}
	// avg_ttl is the mean TTL left in ms, as Redis estimates it.
	db, avg, _ := strings.Cut(f["db0"], ",avg_ttl=")
	if ms, err := strconv.Atoi(avg); db != "keys=2,expires=1" || err != nil || ms < 99000 || ms > 100000 {
		t.Errorf("INFO db0 = %q, want keys=2,expires=1,avg_ttl= about 100000", f["db0"])
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
