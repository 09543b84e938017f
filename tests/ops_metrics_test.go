package tests

import (
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape fetches a URL and returns its status and body.
func scrape(t *testing.T, url string) (int, []byte) {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: reading body: %v", url, err)
	}
	return resp.StatusCode, body
}

func parseMetrics(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return fams
}

// sample finds the metric of a family whose labels include want.
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == k && l.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// TestOpsMetrics scrapes /metrics after some traffic and checks, through
// the Prometheus text parser, the per-command, per-shard and fan-out
// figures; pprof is there only when asked for.
func TestOpsMetrics(t *testing.T) {
	for _, pprof := range []string{"no", "yes"} {
		t.Run("pprof="+pprof, func(t *testing.T) {
			var base string
			p := startOps(t, "geoshard-metrics", func(t *testing.T) []string {
				port := mustFreePort(t)
				base = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
				return []string{"--metrics-port", strconv.Itoa(port), "--pprof", pprof}
			})
			rc := dialRaw(t, p)
			// Berlin and New York sit in different shards of the world map.
			rc.mustDo(t, "GEOADD", "fleet", "13.40", "52.52", "berlin", "-74.0", "40.7", "nyc")
			rc.mustDo(t, "GEOADD", "fleet", "13.41", "52.53", "berlin2")
			const searches = 3
			for i := 0; i < searches; i++ {
				rc.mustDo(t, "GEOSEARCH", "fleet", "FROMLONLAT", "0", "45", "BYRADIUS", "10000", "km")
			}
			rc.mustDo(t, "CONFIG", "GET", "maxmemory")

			fams := parseMetrics(t, base+"/metrics")
			checks := []struct {
				name   string
				labels map[string]string
				get    func(*dto.Metric) float64
				want   float64
			}{
				{"geoshard_commands_total", map[string]string{"cmd": "geoadd"}, counterValue, 2},
				{"geoshard_commands_total", map[string]string{"cmd": "geosearch"}, counterValue, searches},
				{"geoshard_commands_total", map[string]string{"cmd": "config|get"}, counterValue, 1},
				{"geoshard_command_duration_seconds", map[string]string{"cmd": "geosearch"}, histogramCount, searches},
			}
			for _, c := range checks {
				m := sample(fams, c.name, c.labels)
				if m == nil {
					t.Errorf("no %s%v in /metrics", c.name, c.labels)
					continue
				}
				if got := c.get(m); got != c.want {
					t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
				}
			}
			// The harness's readiness PING may still be closing.
			if m := sample(fams, "geoshard_connected_clients", nil); m == nil || gaugeValue(m) < 1 {
				t.Errorf("geoshard_connected_clients: %v, want at least this test's client", m)
			}
			members, writes := 0.0, 0.0
			for _, m := range fams["geoshard_shard_members"].GetMetric() {
				members += m.GetGauge().GetValue()
			}
			for _, m := range fams["geoshard_shard_writes_total"].GetMetric() {
				writes += m.GetCounter().GetValue()
			}
			if members != 3 || writes < 3 {
				t.Errorf("shards hold %v members after %v writes, want 3 and at least 3", members, writes)
			}
			if n := len(fams["geoshard_shard_members"].GetMetric()); n < 2 {
				t.Errorf("%d shards in /metrics, want the world map's", n)
			}
			fan := fams["geoshard_search_fanout_shards"]
			if fan.GetType() != dto.MetricType_HISTOGRAM || len(fan.GetMetric()) != 1 {
				t.Fatalf("geoshard_search_fanout_shards: %v", fan)
			}
			if h := fan.GetMetric()[0].GetHistogram(); h.GetSampleCount() < searches || h.GetSampleSum() < 2*searches {
				t.Errorf("fan-out histogram: %d searches over %v shards, want at least %d over %d",
					h.GetSampleCount(), h.GetSampleSum(), searches, 2*searches)
			}
			for _, name := range []string{"geoshard_border_searches_total", "geoshard_used_memory_bytes",
				"geoshard_shard_handoffs_in_total", "geoshard_shard_degraded_searches_total", "go_goroutines"} {
				if fams[name] == nil {
					t.Errorf("no %s in /metrics", name)
				}
			}

			for _, path := range []string{"/map", "/map/data.json"} {
				if status, body := scrape(t, base+path); status != 200 || len(body) == 0 {
					t.Errorf("%s answered %d with %d bytes", path, status, len(body))
				}
			}
			status, _ := scrape(t, base+"/debug/pprof/")
			if want := map[string]int{"no": 404, "yes": 200}[pprof]; status != want {
				t.Errorf("pprof %s: /debug/pprof/ answered %d, want %d", pprof, status, want)
			}
		})
	}
}

func counterValue(m *dto.Metric) float64   { return m.GetCounter().GetValue() }
func gaugeValue(m *dto.Metric) float64     { return m.GetGauge().GetValue() }
func histogramCount(m *dto.Metric) float64 { return float64(m.GetHistogram().GetSampleCount()) }
