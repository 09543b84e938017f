package commands

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"os"
	"runtime"
	rtmetrics "runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func init() {
	register(&command{name: "info", arity: -1, flags: []string{"loading", "stale"}, handler: info})
}

// GeoshardVersion is this server's own version, which INFO reports next
// to the Redis version it behaves as.
const GeoshardVersion = "0.1.0"

// infoSections lists INFO's sections in the order Redis writes them;
// def marks those INFO with no argument (or "default") includes.
var infoSections = []struct {
	name string
	def  bool
	gen  func(e *Engine, c *Client, b *infoBuilder)
}{
	{"server", true, infoServer},
	{"clients", true, infoClients},
	{"memory", true, infoMemory},
	{"persistence", true, infoPersistence},
	{"stats", true, infoStats},
	{"replication", true, infoReplication},
	{"cpu", true, infoCPU},
	{"modules", true, func(*Engine, *Client, *infoBuilder) {}},
	{"commandstats", false, infoCommandStats},
	{"errorstats", true, func(*Engine, *Client, *infoBuilder) {}},
	{"cluster", true, func(e *Engine, c *Client, b *infoBuilder) { b.field("cluster_enabled", "0") }},
	{"keyspace", true, infoKeyspace},
	{"shards", true, infoShards},
}

// infoBuilder collects INFO's "key:value" lines.
type infoBuilder struct{ strings.Builder }

func (b *infoBuilder) field(k, v string) {
	b.WriteString(k)
	b.WriteByte(':')
	b.WriteString(v)
	b.WriteString("\r\n")
}

func (b *infoBuilder) int(k string, v int64) { b.field(k, strconv.FormatInt(v, 10)) }

// info: INFO [section ...]
func info(e *Engine, c *Client, args [][]byte) {
	want := map[string]bool{}
	all, def := false, len(args) == 1
	for _, a := range args[1:] {
		s := strings.ToLower(string(a))
		switch s {
		case "all", "everything":
			all = true
		case "default":
			def = true
		default:
			want[s] = true
		}
	}
	var b infoBuilder
	n := 0
	for _, sec := range infoSections {
		if !(all || (def && sec.def) || want[sec.name]) {
			continue
		}
		if n > 0 {
			b.WriteString("\r\n")
		}
		n++
		title := strings.ToUpper(sec.name[:1]) + sec.name[1:]
		if sec.name == "cpu" {
			title = "CPU"
		}
		b.WriteString("# " + title + "\r\n")
		sec.gen(e, c, &b)
	}
	c.W.Verbatim(b.String())
}

// setting returns a directive's value, or def when there is none.
func (e *Engine) setting(name, def string) string {
	if s, ok := e.config.Lookup(name); ok {
		return s.Get()
	}
	return def
}

// runID identifies this run of the server, as Redis's run_id does.
func (e *Engine) runID() string {
	sum := sha1.Sum([]byte(strconv.Itoa(os.Getpid()) + "/" + strconv.FormatInt(e.start.UnixNano(), 10)))
	return hex.EncodeToString(sum[:])
}

func infoServer(e *Engine, c *Client, b *infoBuilder) {
	now := time.Now()
	up := int64(now.Sub(e.start) / time.Second)
	exe, _ := os.Executable()
	b.field("redis_version", RedisVersion)
	b.field("geoshard_version", GeoshardVersion)
	b.field("redis_git_sha1", "00000000")
	b.field("redis_git_dirty", "0")
	b.field("redis_mode", "standalone")
	b.field("os", runtime.GOOS+" "+runtime.GOARCH)
	b.int("arch_bits", strconv.IntSize)
	b.field("go_version", runtime.Version())
	b.int("process_id", int64(os.Getpid()))
	b.field("process_supervised", "no")
	b.field("run_id", e.runID())
	b.field("tcp_port", e.setting("port", "0"))
	b.int("server_time_usec", now.UnixMicro())
	b.int("uptime_in_seconds", up)
	b.int("uptime_in_days", up/86400)
	b.field("executable", exe)
	b.field("config_file", e.config.configFile())
}

func infoClients(e *Engine, c *Client, b *infoBuilder) {
	b.int("connected_clients", int64(e.clients.len()))
	b.field("cluster_connections", "0")
	b.field("maxclients", e.setting("maxclients", "10000"))
	b.field("blocked_clients", "0")
	b.field("tracking_clients", "0")
	b.field("clients_in_timeout_table", "0")
}

// bytesToHuman formats a size as Redis's INFO does.
func bytesToHuman(n uint64) string {
	units := []struct {
		size   float64
		suffix string
	}{{1 << 60, "E"}, {1 << 50, "P"}, {1 << 40, "T"}, {1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}}
	for _, u := range units {
		if float64(n) >= u.size {
			return strconv.FormatFloat(float64(n)/u.size, 'f', 2, 64) + u.suffix
		}
	}
	return strconv.FormatUint(n, 10) + "B"
}

// residentBytes reads the process's resident set size where the system
// tells it (Linux), else falls back to what the Go runtime holds.
func residentBytes(m *runtime.MemStats) uint64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if pages, err := strconv.ParseUint(f[1], 10, 64); err == nil {
				return pages * uint64(os.Getpagesize())
			}
		}
	}
	return m.Sys
}

// gcSettings reads the collector's GOGC and soft memory limit as they
// stand (PaceGC changes them as the heap does).
func gcSettings() (gogc, limit int64) {
	s := []rtmetrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() == rtmetrics.KindUint64 {
		gogc = int64(s[0].Value.Uint64())
	}
	if s[1].Value.Kind() == rtmetrics.KindUint64 {
		limit = int64(min(s[1].Value.Uint64(), math.MaxInt64))
	}
	return gogc, limit
}

func infoMemory(e *Engine, c *Client, b *infoBuilder) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rss := residentBytes(&m)
	b.int("used_memory", int64(m.HeapAlloc))
	b.field("used_memory_human", bytesToHuman(m.HeapAlloc))
	b.int("used_memory_rss", int64(rss))
	b.field("used_memory_rss_human", bytesToHuman(rss))
	b.int("used_memory_sys", int64(m.Sys))
	b.field("used_memory_sys_human", bytesToHuman(m.Sys))
	b.int("go_heap_inuse", int64(m.HeapInuse))
	b.int("go_heap_objects", int64(m.HeapObjects))
	b.int("go_stack_inuse", int64(m.StackInuse))
	b.int("go_gc_count", int64(m.NumGC))
	// What the collector's pacing (gc-percent, gc-min-percent, gc-trim)
	// leaves resident beyond the live heap: the goal the heap may grow to
	// before the next collection, and free pages kept or handed back.
	b.int("go_heap_goal", int64(m.NextGC))
	b.int("go_heap_free", int64(m.HeapIdle-m.HeapReleased))
	b.int("go_heap_released", int64(m.HeapReleased))
	gogc, limit := gcSettings()
	b.int("go_gc_percent", gogc)
	b.int("go_memory_limit", limit)
	b.int("go_gc_pause_total_ns", int64(m.PauseTotalNs))
	b.int("go_goroutines", int64(runtime.NumGoroutine()))
	maxmem := e.config.MaxMemory()
	b.int("maxmemory", maxmem)
	b.field("maxmemory_human", bytesToHuman(uint64(maxmem)))
	b.field("maxmemory_policy", "noeviction")
	ratio := 0.0
	if m.HeapAlloc > 0 {
		ratio = float64(rss) / float64(m.HeapAlloc)
	}
	b.field("mem_fragmentation_ratio", strconv.FormatFloat(ratio, 'f', 2, 64))
	b.field("mem_allocator", "go-"+runtime.Version())
}

func infoPersistence(e *Engine, c *Client, b *infoBuilder) {
	b.field("loading", "0")
	b.field("async_loading", "0")
	infoRDB(e, b) // snapshot.go
	b.field("aof_enabled", "0")
	b.field("aof_rewrite_in_progress", "0")
	b.field("aof_last_write_status", "ok")
}

func infoStats(e *Engine, c *Client, b *infoBuilder) {
	var errors int64
	e.counters.perCommand.Range(func(_, v any) bool {
		_, _, failed := v.(*commandStat).totals()
		errors += failed
		return true
	})
	b.int("total_connections_received", e.counters.connections.Load())
	b.int("total_commands_processed", e.counters.commands.Load())
	b.int("rejected_connections", e.counters.rejected.Load())
	b.field("expired_keys", "0")
	b.field("evicted_keys", "0")
	b.field("keyspace_hits", "0")
	b.field("keyspace_misses", "0")
	b.field("pubsub_channels", "0")
	b.field("pubsub_patterns", "0")
	b.int("total_error_replies", errors)
}

func infoReplication(e *Engine, c *Client, b *infoBuilder) {
	b.field("role", "master")
	b.field("connected_slaves", "0")
	b.field("master_failover_state", "no-failover")
	b.field("master_replid", e.runID())
	b.field("master_replid2", strings.Repeat("0", 40))
	b.field("master_repl_offset", "0")
	b.field("second_repl_offset", "-1")
	b.field("repl_backlog_active", "0")
}

func infoCPU(e *Engine, c *Client, b *infoBuilder) {
	secs := func(t syscall.Timeval) string {
		return strconv.FormatFloat(float64(t.Sec)+float64(t.Usec)/1e6, 'f', 6, 64)
	}
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	b.field("used_cpu_sys", secs(self.Stime))
	b.field("used_cpu_user", secs(self.Utime))
	b.field("used_cpu_sys_children", secs(children.Stime))
	b.field("used_cpu_user_children", secs(children.Utime))
}

func infoCommandStats(e *Engine, c *Client, b *infoBuilder) {
	var names []string
	e.counters.perCommand.Range(func(k, _ any) bool {
		names = append(names, k.(string))
		return true
	})
	sort.Strings(names)
	for _, n := range names {
		st := e.stat(n)
		calls, usec, failed := st.totals()
		per := 0.0
		if calls > 0 {
			per = float64(usec) / float64(calls)
		}
		b.field("cmdstat_"+n, "calls="+strconv.FormatInt(calls, 10)+
			",usec="+strconv.FormatInt(usec, 10)+
			",usec_per_call="+strconv.FormatFloat(per, 'f', 2, 64)+
			",rejected_calls=0,failed_calls="+strconv.FormatInt(failed, 10))
	}
}

// infoKeyspace lists the databases that hold keys. In cluster mode each
// database's geo keys are asked of every node, all databases at once and
// with the keyspace let go (Engine.outside); one after the other under the
// lock, while a peer hung an INFO waited out 16 call timeouts and held up
// every SET through the node, and every command behind the SET (SET p99
// 15.8 s, TestClusterReadsHungNode). A node that did not answer leaves
// out the keys only it holds.
func infoKeyspace(e *Engine, c *Client, b *infoBuilder) {
	r := e.Router()
	geoKeys := make([][]string, len(e.dbs))
	e.outside(c, func() {
		var wg sync.WaitGroup
		for i := range geoKeys {
			wg.Go(func() { geoKeys[i], _ = r.TryKeys(i) })
		}
		wg.Wait()
	})
	now := nowMS()
	for i, d := range e.dbs {
		live := d.live(geoKeys[i], now)
		if len(live) == 0 {
			continue
		}
		// avg_ttl: Redis keeps a running estimate of the mean TTL left
		// (in ms: 99439 a second after SET k v, EXPIRE k 100); this is
		// that mean. Summed as floats: EXPIREAT allows times near
		// math.MaxInt64 ms.
		expires, left := 0, 0.0
		for _, k := range live {
			if at, ok := d.expires[k]; ok && at > now {
				expires++
				left += float64(at - now)
			}
		}
		avg := int64(0)
		if expires > 0 {
			avg = int64(left / float64(expires))
		}
		b.field("db"+strconv.Itoa(i), "keys="+strconv.Itoa(len(live))+
			",expires="+strconv.Itoa(expires)+",avg_ttl="+strconv.FormatInt(avg, 10))
	}
}
