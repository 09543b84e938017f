package server

import (
	rtmetrics "runtime/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// gcCollector exports what PaceGC steers by and what it costs, read fresh
// from runtime/metrics for each scrape: the collector's CPU, and the heap
// beyond its live objects (the Go collector's go_memstats_* gauges give
// the rest: next_gc, heap_idle, heap_released; go_gc_gogc_percent and
// go_gc_gomemlimit_bytes what PaceGC set).
type gcCollector struct{}

var gcMetrics = []struct {
	name string
	desc *prometheus.Desc
	kind prometheus.ValueType
}{
	{"/cpu/classes/gc/total:cpu-seconds", prometheus.NewDesc("geoshard_gc_cpu_seconds_total",
		"CPU time the Go collector spent (runtime/metrics /cpu/classes/gc/total), estimated by the runtime.", nil, nil),
		prometheus.CounterValue},
	{"/gc/heap/live:bytes", prometheus.NewDesc("geoshard_heap_live_bytes",
		"Heap marked live by the last collection: what PaceGC sizes the collection goal from.", nil, nil),
		prometheus.GaugeValue},
	{"/memory/classes/heap/free:bytes", prometheus.NewDesc("geoshard_heap_free_bytes",
		"Free heap pages still resident: kept for reuse, not yet returned to the system.", nil, nil),
		prometheus.GaugeValue},
	{"/memory/classes/heap/unused:bytes", prometheus.NewDesc("geoshard_heap_unused_bytes",
		"Heap in spans in use but not in objects: garbage not yet swept and fragmentation.", nil, nil),
		prometheus.GaugeValue},
}

func (gcCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range gcMetrics {
		ch <- m.desc
	}
}

func (gcCollector) Collect(ch chan<- prometheus.Metric) {
	samples := make([]rtmetrics.Sample, len(gcMetrics))
	for i, m := range gcMetrics {
		samples[i].Name = m.name
	}
	rtmetrics.Read(samples)
	for i, m := range gcMetrics {
		var v float64
		switch samples[i].Value.Kind() {
		case rtmetrics.KindUint64:
			v = float64(samples[i].Value.Uint64())
		case rtmetrics.KindFloat64:
			v = samples[i].Value.Float64()
		default:
			continue // not in this Go version
		}
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, v)
	}
}
