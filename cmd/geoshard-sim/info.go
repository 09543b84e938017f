package main

import (
	"bufio"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// shardInfo is what INFO shards says: per shard and per border counters
// (field name to value) and the searches by number of shards asked.
type shardInfo struct {
	shards   map[string]map[string]int64
	borders  map[string]map[string]int64
	byShards []int64 // [0] searches that asked 1 shard, [1] 2, ...
	degraded int64
}

// parseInfo reads the "# Shards" lines of an INFO reply:
//
//	shard_<name>:members=..,writes=..,handoffs_in=..,...
//	border_<a>_<b>:handoffs=..,flaps_suppressed=..,searches=..
//	searches_by_shards:1=..,2=..,...,8+=..
//	degraded_searches:N
func parseInfo(text string) shardInfo {
	in := shardInfo{shards: map[string]map[string]int64{}, borders: map[string]map[string]int64{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		name, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(name, "shard_"):
			in.shards[strings.TrimPrefix(name, "shard_")] = fields(val)
		case strings.HasPrefix(name, "border_"):
			in.borders[strings.TrimPrefix(name, "border_")] = fields(val)
		case name == "searches_by_shards":
			f := fields(val)
			keys := make([]int, 0, len(f))
			for k := range f {
				if n, err := strconv.Atoi(strings.TrimSuffix(k, "+")); err == nil && n >= 1 && n <= 64 {
					keys = append(keys, n)
				}
			}
			sort.Ints(keys)
			if len(keys) > 0 {
				in.byShards = make([]int64, keys[len(keys)-1])
			}
			for k, v := range f {
				if n, err := strconv.Atoi(strings.TrimSuffix(k, "+")); err == nil && n >= 1 && n <= 64 {
					in.byShards[n-1] = v
				}
			}
		case name == "degraded_searches":
			in.degraded, _ = strconv.ParseInt(val, 10, 64)
		}
	}
	return in
}

func fields(s string) map[string]int64 {
	out := map[string]int64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[k] = n
		}
	}
	return out
}

// totals are the figures the progress line shows.
type totals struct {
	handoffs, flaps, searches, fanOut, degraded, writes, members int64
}

func (in shardInfo) totals() totals {
	var t totals
	for _, b := range in.borders {
		t.handoffs += b["handoffs"]
		t.flaps += b["flaps_suppressed"]
	}
	for i, n := range in.byShards {
		t.searches += n
		if i > 0 {
			t.fanOut += n
		}
	}
	for _, s := range in.shards {
		t.writes += s["writes"]
		t.members += s["members"]
	}
	t.degraded = in.degraded
	return t
}

// infoReader returns a function reading INFO shards on c.
func infoReader(c *conn) func() (shardInfo, error) {
	return func() (shardInfo, error) {
		v, err := c.do("INFO", "shards")
		if err != nil {
			return shardInfo{}, fmt.Errorf("INFO shards: %w", err)
		}
		s, ok := v.(string)
		if !ok {
			return shardInfo{}, fmt.Errorf("INFO shards: unexpected reply %v", v)
		}
		return parseInfo(s), nil
	}
}
