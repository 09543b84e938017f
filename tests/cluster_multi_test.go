package tests

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestClusterMultiDifferential: transactions through cluster nodes answer
// byte for byte what Redis answers. In cluster mode EXEC runs its queued
// commands one by one as they run outside MULTI when every one names keys
// (commands/exec_spread.go), and as one step with the keyspace held alone
// when one names none; both kinds are here, with members spread over the
// shards of three nodes, errors inside the queue, and keys changing type.
func TestClusterMultiDifferential(t *testing.T) {
	ref := startRedis(t)
	tc := startCluster(t, 3, "--regions", clusterMap(t), "--fanout-timeout", "5000")
	ds := faultDrivers(60)
	geoadd := func(key string, from, to int) []string {
		args := []string{"GEOADD", key}
		for _, d := range ds[from:to] {
			args = append(args, strconv.FormatFloat(d.Longitude, 'f', -1, 64),
				strconv.FormatFloat(d.Latitude, 'f', -1, 64), d.Name)
		}
		return args
	}
	search := []string{"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "30", "km", "ASC", "COUNT", "7", "WITHDIST"}
	store := []string{"GEOSEARCHSTORE", "near", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "30", "km", "ASC", "COUNT", "5"}
	txs := [][][]string{
		{geoadd("drivers", 0, 30), {"ZCARD", "drivers"}, {"GEOPOS", "drivers", ds[0].Name, ds[29].Name, "nobody"}},
		{{"SET", "s", "1"}, {"GEOADD", "s", "4.9", "52.37", "x"}, {"GET", "s"}, {"TYPE", "s"}, geoadd("drivers", 25, 45)},
		{search, store, {"ZRANGE", "near", "0", "-1", "WITHSCORES"}, {"TYPE", "near"}},
		{{"RENAME", "near", "near2"}, {"EXISTS", "near", "near2"}, {"EXPIRE", "near2", "100"}, {"TTL", "near2"}},
		{{"ZREM", "near2", ds[0].Name, "nobody"}, {"ZCARD", "near2"}, {"DEL", "near2", "s"}, {"EXISTS", "near2", "s"}},
		{{"ZINCRBY", "counters", "2", "m"}, {"ZADD", "counters", "INCR", "3", "m"}, {"ZSCORE", "counters", "m"}, {"ZADD", "counters", "NX", "CH", "1", "m", "5", "n"}},
		{store, {"SET", "near", "now a string"}, {"GET", "near"}, {"GEOADD", "near", "4.9", "52.37", "x"}},
		{geoadd("drivers", 40, 60), {"ZREM", "drivers", ds[1].Name, ds[41].Name}, search, {"GEODIST", "drivers", ds[2].Name, ds[3].Name, "km"}},
		{{"PING"}, {"SET", "k", "v"}, geoadd("other", 0, 5), {"ZCARD", "other"}, {"SELECT", "0"}, {"GET", "k"}},
		// Spread: PING and ECHO run in place among the keyed commands.
		{{"PING"}, geoadd("spread", 5, 10), {"ECHO", "hi"}, {"ZCARD", "spread"}, {"PING", "x"}, {"ZREM", "spread", ds[5].Name}},
		{{"PING"}, {"ECHO", "only commands that name no key"}},
		{{"GEOSEARCHSTORE", "k", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "30", "km"}, {"TYPE", "k"}, {"ZCARD", "k"}, {"DEL", "k", "other", "drivers"}},
		{{"ZCARD", "drivers"}, {"GEOSEARCH", "drivers", "FROMLONLAT", "4.9", "52.37", "BYRADIUS", "30", "km"}},
	}
	want := dialRaw(t, ref)
	for i, tx := range txs {
		id := string(rune('a' + i%3))
		got := dialRaw(t, tc.nodes[id].proc)
		cmds := append(append([][]string{{"MULTI"}}, tx...), []string{"EXEC"})
		if err := got.send(cmds); err != nil {
			t.Fatal(err)
		}
		if err := want.send(cmds); err != nil {
			t.Fatal(err)
		}
		g, gerr := got.recv(len(cmds))
		w, werr := want.recv(len(cmds))
		if gerr != nil || werr != nil {
			t.Fatalf("transaction %d: %v, redis %v", i, gerr, werr)
		}
		if !bytes.Equal(bytes.Join(g, nil), bytes.Join(w, nil)) {
			t.Errorf("transaction %d through %s: %s\n got %q\nwant %q", i, id, describeTx(tx), g[len(g)-1], w[len(w)-1])
		}
	}
}

func describeTx(tx [][]string) string {
	var names []string
	for _, c := range tx {
		names = append(names, fmt.Sprint(c[0]))
	}
	return "MULTI " + strings.Join(names, ", ") + " EXEC"
}
