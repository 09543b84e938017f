package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"geoshard/internal/redistest"
	"geoshard/resp"
)

// startRedis runs a throwaway redis-server until the test ends and
// returns its address.
func startRedis(t *testing.T) string { return redistest.Start(t) }

func runTool(t *testing.T, args ...string) (*report, string) {
	t.Helper()
	cfg, err := parseFlags(args, io.Discard)
	if err != nil {
		t.Fatalf("parseFlags(%q): %v", args, err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := run(ctx, cfg, &out, io.Discard)
	if err != nil {
		t.Fatalf("run(%q): %v\n%s", args, err, out.String())
	}
	return rep, out.String()
}

func controlClient(t *testing.T, addr string) *client {
	t.Helper()
	c, err := dial(context.Background(), addr, "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c
}

func TestQuickRunAgainstRedis(t *testing.T) {
	addr := startRedis(t)
	rep, out := runTool(t, "-quick", "-target", addr, "-c", "16")
	if rep.Drivers != 20_000 || len(rep.Phases) != 5 {
		t.Fatalf("report has %d drivers, %d phases; want 20000, 5", rep.Drivers, len(rep.Phases))
	}

	c := controlClient(t, addr)
	card, err := c.command("ZCARD", "drivers")
	if err != nil || card.n != 20_000 {
		t.Fatalf("ZCARD drivers = %d, %v; want 20000", card.n, err)
	}

	byPhase := map[string]targetResult{}
	for _, ph := range rep.Phases {
		if len(ph.Results) != 1 {
			t.Fatalf("phase %s: %d results, want 1", ph.Phase, len(ph.Results))
		}
		res := ph.Results[0]
		byPhase[ph.Phase] = res
		if res.Errors != 0 || res.Ops == 0 || res.OpsPerSec <= 0 || res.P50Us <= 0 ||
			res.P99Us < res.P50Us || res.P999Us < res.P99Us || res.ServerCPUUsPerOp <= 0 {
			t.Errorf("phase %s: implausible figures %+v", ph.Phase, res)
		}
	}
	load := byPhase["load"]
	if load.Ops != 20_000 || load.Members != 20_000 || load.BytesPerDriver <= 0 {
		t.Errorf("load: ops %d members %d bytes/driver %v", load.Ops, load.Members, load.BytesPerDriver)
	}
	if knn := byPhase["knn"]; knn.ResultsPerReply <= 0 || knn.ResultsPerReply > 10 {
		t.Errorf("knn returned %v members per reply, want 0 < x <= COUNT 10", knn.ResultsPerReply)
	}
	if wide := byPhase["wide"]; wide.ResultsPerReply <= 10 {
		t.Errorf("wide returned %v members per reply, want many more than a knn", wide.ResultsPerReply)
	}
	for _, want := range []string{"ops/s", "p999", "srv-cpu/op", "knn", "wide", "bytes/driver"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestLoadWritesTheFleet checks the data, not only the counts: after a load,
// Redis holds each driver where the generator put it.
func TestLoadWritesTheFleet(t *testing.T) {
	addr := startRedis(t)
	runTool(t, "-quick", "-n", "3000", "-mode", "load", "-key", "fleet", "-target", addr, "-c", "4", "-load-batch", "7")
	want := newFleet(newWorkload(0.1), 3000, 1)
	c := controlClient(t, addr)
	for _, d := range []int{0, 1, 6, 7, 1234, 2999} {
		pos, err := geopos(c, "fleet", "driver:"+strconv.Itoa(d))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(pos[0]-want.lon[d]) > 1e-5 || math.Abs(pos[1]-want.lat[d]) > 1e-5 {
			t.Errorf("driver:%d at %v, want %v,%v", d, pos, want.lon[d], want.lat[d])
		}
	}
}

func TestTwoTargetsInterleaved(t *testing.T) {
	a, b := startRedis(t), startRedis(t)
	rep, out := runTool(t, "-quick", "-a", a, "-b", b, "-c", "8", "-duration", "1s", "-mode", "load,update,knn")
	for _, ph := range rep.Phases {
		if len(ph.Results) != 2 {
			t.Fatalf("phase %s: %d results, want 2", ph.Phase, len(ph.Results))
		}
		for _, res := range ph.Results {
			if res.Ops == 0 || res.Errors != 0 {
				t.Errorf("phase %s %s: ops %d errors %d", ph.Phase, res.Target, res.Ops, res.Errors)
			}
		}
	}
	for _, addr := range []string{a, b} {
		card, err := controlClient(t, addr).command("ZCARD", "drivers")
		if err != nil || card.n != 20_000 {
			t.Errorf("%s: ZCARD = %d, %v; want 20000", addr, card.n, err)
		}
	}
	if strings.Count(out, "B/A") < 3 {
		t.Errorf("want a B/A row per phase and for memory:\n%s", out)
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick", "-target", "192.0.2.1:6379"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	_, err = run(context.Background(), cfg, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not a loopback") {
		t.Fatalf("run against 192.0.2.1 returned %v, want a loopback refusal", err)
	}
}

// geopos reads one member's position through the tool's connection.
func geopos(c *client, key, member string) ([2]float64, error) {
	var pos [2]float64
	if err := c.send(appendCommand(c.buf(), "GEOPOS", key, member)); err != nil {
		return pos, err
	}
	raw, err := resp.ReadReply(c.r, nil)
	if err != nil {
		return pos, err
	}
	v, err := resp.ParseReply(raw)
	outer, ok := v.([]any)
	if err != nil || !ok || len(outer) != 1 {
		return pos, fmt.Errorf("GEOPOS %s %s: got %q (%v)", key, member, raw, err)
	}
	inner, ok := outer[0].([]any)
	if !ok || len(inner) != 2 {
		return pos, fmt.Errorf("GEOPOS %s %s: got %q", key, member, raw)
	}
	for i := range pos {
		s, _ := inner[i].(string)
		if pos[i], err = strconv.ParseFloat(s, 64); err != nil {
			return pos, fmt.Errorf("GEOPOS %s %s: got %q: %w", key, member, raw, err)
		}
	}
	return pos, nil
}

// TestIdlePhaseReportsRSS: an idle phase sends nothing, waits its time,
// and reports only RSS, in the RSS table and not the rate table.
func TestIdlePhaseReportsRSS(t *testing.T) {
	addr := startRedis(t)
	start := time.Now()
	rep, out := runTool(t, "-quick", "-n", "2000", "-target", addr, "-c", "4", "-mode", "load,idle:0.5")
	if took := time.Since(start); took < 500*time.Millisecond {
		t.Errorf("run with idle:0.5 took %v", took)
	}
	if len(rep.Phases) != 2 || !rep.Phases[1].Idle {
		t.Fatalf("phases %+v, want load and an idle one", rep.Phases)
	}
	idle := rep.Phases[1].Results[0]
	if idle.Ops != 0 || idle.RSS <= 0 || idle.RSSPerDriver <= 0 {
		t.Errorf("idle phase: ops %d RSS %d RSS/driver %v, want no ops and an RSS reading", idle.Ops, idle.RSS, idle.RSSPerDriver)
	}
	rateTable, rssTable, _ := strings.Cut(out, "RSS growth per driver")
	if strings.Contains(rateTable, "idle") || !strings.Contains(rssTable, "idle:0.5") {
		t.Errorf("idle phase should be in the RSS table only:\n%s", out)
	}
}
