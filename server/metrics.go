package server

import (
	runtimemetrics "runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/router"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics is what /metrics serves: per-command counters and latencies,
// which the engine reports as commands run, and everything else read from
// the router and the engine at scrape time.
type metrics struct {
	registry *prometheus.Registry
	calls    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	// byName caches each command's children: a label lookup hashes the
	// name on every call, the cache makes it one map read.
	byName sync.Map // name -> *commandMetrics
}

type commandMetrics struct {
	calls   prometheus.Counter
	latency prometheus.Observer
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "geoshard_commands_total",
			Help: "Commands run, by command (subcommands as parent|sub).",
		}, []string{"cmd"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "geoshard_command_duration_seconds",
			Help:    "Time a command ran, by command.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 4, 10), // 10µs to 2.6s
		}, []string{"cmd"}),
	}
	m.registry.MustRegister(m.calls, m.latency, serverCollector{s}, clusterCollector{s}, gcCollector{},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observeCommand is the engine's CommandObserver.
func (m *metrics) observeCommand(name string, d time.Duration) {
	cm, ok := m.byName.Load(name)
	if !ok {
		cm, _ = m.byName.LoadOrStore(name, &commandMetrics{
			calls:   m.calls.WithLabelValues(name),
			latency: m.latency.WithLabelValues(name),
		})
	}
	c := cm.(*commandMetrics)
	c.calls.Inc()
	c.latency.Observe(d.Seconds())
}

// serverCollector reads the router's and the engine's counters when
// scraped. It describes nothing up front (an "unchecked" collector):
// shards and borders come and go with the region map.
type serverCollector struct{ s *Server }

var (
	descShard = func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("geoshard_shard_"+name, help, []string{"shard"}, nil)
	}
	descBorder = func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("geoshard_border_"+name, help, []string{"a", "b"}, nil)
	}
	shardMembers     = descShard("members", "Members a shard holds.")
	shardWrites      = descShard("writes_total", "Copies written into a shard.")
	shardHandoffsIn  = descShard("handoffs_in_total", "Members moved into a shard from another.")
	shardHandoffsOut = descShard("handoffs_out_total", "Members moved out of a shard.")
	shardSearches    = descShard("searches_total", "Searches that asked a shard.")
	shardDegraded    = descShard("degraded_searches_total", "Searches that gave up waiting for a shard.")
	shardExpired     = descShard("expired_total", "Copies removed from a shard by the position TTL.")
	borderHandoffs   = descBorder("handoffs_total", "Members that crossed a border.")
	borderFlaps      = descBorder("flaps_suppressed_total", "Writes kept in place by the hysteresis margin.")
	borderSearches   = descBorder("searches_total", "Searches that asked the shards on both sides of a border.")
	fanOut           = prometheus.NewDesc("geoshard_search_fanout_shards",
		"Shards each search asked (the top bucket holds all larger fan-outs).", nil, nil)
	degraded = prometheus.NewDesc("geoshard_degraded_searches_total",
		"Searches answered without every shard they needed.", nil, nil)
	readAgain = prometheus.NewDesc("geoshard_searches_read_again_total",
		"Searches that read their shards again: members were handed off between them meanwhile.", nil, nil)
	regionMap = prometheus.NewDesc("geoshard_region_map_info",
		"The region map in use, by version.", []string{"version"}, nil)
	clients = prometheus.NewDesc("geoshard_connected_clients",
		"Client connections open.", nil, nil)
	connections = prometheus.NewDesc("geoshard_connections_received_total",
		"Client connections accepted.", nil, nil)
	rejected = prometheus.NewDesc("geoshard_rejected_connections_total",
		"Connections refused by maxclients.", nil, nil)
	usedMemory = prometheus.NewDesc("geoshard_used_memory_bytes",
		"Go heap held by objects: what maxmemory limits.", nil, nil)
	maxMemory = prometheus.NewDesc("geoshard_maxmemory_bytes",
		"The maxmemory limit, 0 for none.", nil, nil)
)

// Describe implements prometheus.Collector.
func (serverCollector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (sc serverCollector) Collect(ch chan<- prometheus.Metric) {
	s := sc.s
	r := s.Router()
	m := r.Regions()
	st := r.Stats()
	counter := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), labels...)
	}
	members := r.ShardMembers()
	// The same bound as INFO: the busiest shards and borders, so a scrape
	// of a map of thousands of areas stays small.
	ids, _ := st.TopShards(members, router.InfoLimit)
	for _, id := range ids {
		if int(id) >= m.Len() {
			break // counters of a map being replaced
		}
		ss := &st.Shards[id]
		name := m.Name(id)
		var n int64
		if int(id) < len(members) {
			n = members[id]
		}
		gauge(shardMembers, n, name)
		counter(shardWrites, ss.Writes.Load(), name)
		counter(shardHandoffsIn, ss.HandoffsIn.Load(), name)
		counter(shardHandoffsOut, ss.HandoffsOut.Load(), name)
		counter(shardSearches, ss.Searches.Load(), name)
		counter(shardDegraded, ss.Degraded.Load(), name)
		counter(shardExpired, ss.Expired.Load(), name)
	}
	borders, _ := st.TopBorders(router.InfoLimit)
	for _, bd := range borders {
		if int(bd.A) >= m.Len() || int(bd.B) >= m.Len() {
			continue
		}
		bs := st.Border(bd.A, bd.B)
		a, b := m.Name(bd.A), m.Name(bd.B)
		counter(borderHandoffs, bs.Handoffs.Load(), a, b)
		counter(borderFlaps, bs.FlapsSuppressed.Load(), a, b)
		counter(borderSearches, bs.Searches.Load(), a, b)
	}
	ch <- fanOutHistogram(st.FanOut[:])
	counter(degraded, st.Degraded.Load())
	counter(readAgain, st.SearchRetries.Load())
	gauge(regionMap, 1, m.Version())
	gauge(clients, int64(s.engine.Clients()))
	counter(connections, s.engine.ConnectionsReceived())
	counter(rejected, s.engine.RejectedConnections())
	gauge(usedMemory, heapObjects())
	gauge(maxMemory, s.cfg.MaxMemory())
}

// fanOutHistogram turns the router's per-count tallies (index n: searches
// that asked n shards; the last index n or more) into a histogram with a
// bucket per shard count.
func fanOutHistogram(counts []atomic.Int64) prometheus.Metric {
	buckets := make(map[float64]uint64, len(counts)-1)
	var total uint64
	var sum float64
	for n := range counts {
		v := uint64(counts[n].Load())
		total += v
		sum += float64(n) * float64(v)
		if n < len(counts)-1 {
			buckets[float64(n)] = total
		}
	}
	return prometheus.MustNewConstHistogram(fanOut, total, sum, buckets)
}

// heapObjects reads the Go heap held by objects, fresh for each scrape.
func heapObjects() int64 {
	sm := []runtimemetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtimemetrics.Read(sm)
	if sm[0].Value.Kind() != runtimemetrics.KindUint64 {
		return 0
	}
	return int64(sm[0].Value.Uint64())
}
