package commands

//go:generate go run gen_meta.go

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"geoshard/cluster"
	"geoshard/resp"
)

func init() {
	admin := []string{"admin", "noscript", "loading", "stale"}
	introspect := []string{"loading", "stale"}
	register(
		&command{name: "command", arity: -1, flags: introspect, handler: commandAll},
		&command{name: "command|info", arity: -2, flags: introspect, handler: commandInfo},
		&command{name: "command|docs", arity: -2, flags: introspect, handler: commandDocs},
		&command{name: "command|count", arity: 2, flags: introspect, handler: commandCount},
		&command{name: "command|list", arity: -2, flags: introspect, handler: commandList},
		&command{name: "info", arity: -1, flags: introspect, handler: info},
		&command{name: "config|get", arity: -3, flags: admin, handler: configGet},
		// Exclusive: a region map reload swaps the router under it.
		&command{name: "config|set", arity: -4, flags: admin, handler: configSet, exclusive: true},
		&command{name: "config|resetstat", arity: 2, flags: admin, handler: configResetStat},
		&command{name: "config|rewrite", arity: 2, flags: admin, handler: configRewrite},
		&command{name: "function|flush", arity: -2, flags: []string{"write", "noscript"}, handler: functionFlush},
		&command{name: "debug", arity: -2, flags: []string{"admin", "noscript", "loading", "stale"}, handler: debug},
		&command{name: "time", arity: 1, flags: []string{"loading", "stale", "fast"}, handler: timeCmd},
	)
}

// GeoshardVersion is this server's own version, which INFO reports next
// to the Redis version it behaves as.
const GeoshardVersion = "0.1.0"

// commandMeta is what COMMAND INFO and COMMAND DOCS say about a command
// beyond the table: Redis's own data (cmd_server_meta.go, generated).
type commandMeta struct {
	info      string // categories, tips, key specs: three RESP3 values
	docFields int    // pairs in docs
	docs      string // COMMAND DOCS fields but subcommands, RESP3
}

// writeRESP3 writes the first reply held in raw, trusted RESP3 bytes, in
// the client's protocol, and returns the bytes after it.
func writeRESP3(w *resp.Writer, raw []byte) []byte {
	eol := bytes.IndexByte(raw, '\n')
	if eol < 1 {
		return nil
	}
	kind, line, rest := raw[0], raw[1:eol-1], raw[eol+1:]
	n, _ := strconv.Atoi(string(line))
	switch kind {
	case '+':
		w.Simple(string(line))
	case ':':
		w.Int(int64(n))
	case '$':
		w.Bulk(rest[:n])
		rest = rest[n+2:]
	case ',':
		w.DoubleText(line)
	case '_':
		w.Null()
	case '#':
		w.Bool(len(line) > 0 && line[0] == 't')
	case '*', '~', '%':
		switch kind {
		case '*':
			w.Array(n)
		case '~':
			w.Set(n)
		default:
			w.Map(n)
			n *= 2
		}
		for i := 0; i < n; i++ {
			rest = writeRESP3(w, rest)
		}
	}
	return rest
}

// categories returns a command's ACL categories, without their '@'.
func (m commandMeta) categories() []string {
	raw := []byte(m.info)
	eol := bytes.IndexByte(raw, '\n')
	if eol < 1 || raw[0] != '~' {
		return nil
	}
	n, _ := strconv.Atoi(string(raw[1 : eol-1]))
	var out []string
	for _, line := range strings.SplitN(string(raw[eol+1:]), "\r\n", n+1)[:n] {
		out = append(out, strings.TrimPrefix(line, "+@"))
	}
	return out
}

// movableKeys reports whether a command's keys can only be found by
// reading its arguments, which Redis derives from its key specs and
// reports as the "movablekeys" flag.
func (m commandMeta) movableKeys() bool {
	return strings.Contains(m.info, "$4\r\ntype\r\n$7\r\nkeyword\r\n") ||
		strings.Contains(m.info, "$4\r\ntype\r\n$6\r\nkeynum\r\n")
}

// lookupCommand finds a command by its full name ("client|list" too).
func lookupCommand(name string) *command {
	name = strings.ToLower(name)
	parent, sub, ok := strings.Cut(name, "|")
	cmd := table[parent]
	if cmd == nil || !ok {
		return cmd
	}
	return cmd.subcommands[sub]
}

// sortedCommands returns the table's commands, or a command's
// subcommands, by name.
func sortedCommands(m map[string]*command) []*command {
	out := make([]*command, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// writeCommandInfo writes one COMMAND INFO entry: name, arity, flags and
// key positions from the table, the rest from Redis's data.
func writeCommandInfo(c *Client, cmd *command) {
	c.W.Array(10)
	c.W.BulkString(cmd.name)
	c.W.Int(int64(cmd.arity))
	m, known := redisMeta[cmd.name]
	flags := cmd.flags
	if known && m.movableKeys() {
		flags = append(flags[:len(flags):len(flags)], "movablekeys")
	}
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.Simple(f)
	}
	c.W.Int(int64(cmd.firstKey))
	c.W.Int(int64(cmd.lastKey))
	c.W.Int(int64(cmd.keyStep))
	if known {
		writeRESP3(&c.W, writeRESP3(&c.W, writeRESP3(&c.W, []byte(m.info))))
	} else {
		c.W.Set(0)
		c.W.Set(0)
		c.W.Set(0)
	}
	subs := sortedCommands(cmd.subcommands)
	c.W.Set(len(subs))
	for _, s := range subs {
		writeCommandInfo(c, s)
	}
}

// commandAll: COMMAND
func commandAll(e *Engine, c *Client, args [][]byte) {
	if len(args) > 1 { // COMMAND with an unknown subcommand
		c.W.Error("ERR unknown subcommand '" + truncate(string(args[1]), 128) + "'. Try COMMAND HELP.")
		return
	}
	all := sortedCommands(table)
	c.W.Array(len(all))
	for _, cmd := range all {
		writeCommandInfo(c, cmd)
	}
}

// commandInfo: COMMAND INFO [command-name ...]
func commandInfo(e *Engine, c *Client, args [][]byte) {
	if len(args) == 2 {
		commandAll(e, c, args[:1])
		return
	}
	c.W.Array(len(args) - 2)
	for _, a := range args[2:] {
		if cmd := lookupCommand(string(a)); cmd != nil {
			writeCommandInfo(c, cmd)
		} else {
			c.W.Null()
		}
	}
}

// writeCommandDocs writes one command's COMMAND DOCS map.
func writeCommandDocs(c *Client, cmd *command) {
	m := redisMeta[cmd.name]
	subs := sortedCommands(cmd.subcommands)
	n := m.docFields
	if len(subs) > 0 {
		n++
	}
	c.W.Map(n)
	rest := []byte(m.docs)
	for i := 0; i < 2*m.docFields; i++ {
		rest = writeRESP3(&c.W, rest)
	}
	if len(subs) > 0 {
		c.W.BulkString("subcommands")
		c.W.Map(len(subs))
		for _, s := range subs {
			c.W.BulkString(s.name)
			writeCommandDocs(c, s)
		}
	}
}

// commandDocs: COMMAND DOCS [command-name ...]
func commandDocs(e *Engine, c *Client, args [][]byte) {
	var cmds []*command
	if len(args) == 2 {
		cmds = sortedCommands(table)
	}
	for _, a := range args[2:] {
		if cmd := lookupCommand(string(a)); cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	c.W.Map(len(cmds))
	for _, cmd := range cmds {
		c.W.BulkString(cmd.name)
		writeCommandDocs(c, cmd)
	}
}

// commandCount: COMMAND COUNT
func commandCount(e *Engine, c *Client, args [][]byte) { c.W.Int(int64(len(table))) }

// commandList: COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]
func commandList(e *Engine, c *Client, args [][]byte) {
	keep := func(*command) bool { return true }
	for i := 2; i < len(args); i++ {
		if !optIs(args[i], "filterby") || len(args)-1-i != 2 {
			c.W.Error(errSyntax)
			return
		}
		arg := string(cstr(args[i+2]))
		switch t := args[i+1]; {
		case optIs(t, "module"):
			keep = func(*command) bool { return false }
		case optIs(t, "aclcat"):
			keep = func(cmd *command) bool {
				for _, cat := range redisMeta[cmd.name].categories() {
					if strings.EqualFold(cat, arg) {
						return true
					}
				}
				return false
			}
		case optIs(t, "pattern"):
			keep = func(cmd *command) bool { return globMatch(strings.ToLower(arg), cmd.name) }
		default:
			c.W.Error(errSyntax)
			return
		}
		i += 2
	}
	var names []string
	for _, cmd := range sortedCommands(table) {
		if keep(cmd) {
			names = append(names, cmd.name)
		}
		for _, s := range sortedCommands(cmd.subcommands) {
			if keep(s) {
				names = append(names, s.name)
			}
		}
	}
	c.W.Array(len(names))
	for _, n := range names {
		c.W.BulkString(n)
	}
}

// configGet: CONFIG GET parameter [parameter ...]
func configGet(e *Engine, c *Client, args [][]byte) {
	type match struct {
		name string // as the reply spells it
		s    *Setting
	}
	seen := map[*Setting]bool{}
	var found []match
	for _, a := range args[2:] {
		pattern := string(a)
		if !strings.ContainsAny(pattern, "*?[") {
			// Redis answers an exact name with the name as it was asked.
			if s, ok := e.config.Lookup(pattern); ok && !seen[s] {
				seen[s] = true
				found = append(found, match{pattern, s})
			}
			continue
		}
		for _, s := range e.config.Match(pattern) {
			if !seen[s] {
				seen[s] = true
				found = append(found, match{s.Name, s})
			}
		}
	}
	c.W.Map(len(found))
	for _, m := range found {
		c.W.BulkString(m.name)
		c.W.BulkString(m.s.Get())
	}
}

// configSet: CONFIG SET parameter value [parameter value ...], all or
// nothing: every name is checked first, and a value that fails puts back
// those already set.
func configSet(e *Engine, c *Client, args [][]byte) {
	if len(args)%2 != 0 {
		c.W.Error(errSyntax)
		return
	}
	pairs := args[2:]
	settings := make([]*Setting, 0, len(pairs)/2)
	unknown, errArg, errStr := "", "", ""
	for i := 0; i < len(pairs); i += 2 {
		name := string(pairs[i])
		s, ok := e.config.Lookup(name)
		switch {
		case unknown != "" || errStr != "":
		case !ok:
			unknown = name
		case s.Set == nil:
			errArg, errStr = name, "can't set immutable config"
		default:
			for _, prev := range settings {
				if prev == s {
					errArg, errStr = name, "duplicate parameter"
				}
			}
		}
		settings = append(settings, s)
	}
	switch {
	case unknown != "":
		c.W.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
		return
	case errStr != "":
		c.W.Error("ERR CONFIG SET failed (possibly related to argument '" + errArg + "') - " + errStr)
		return
	}
	old := make([]string, len(settings))
	for i, s := range settings {
		old[i] = s.Get()
	}
	for i, s := range settings {
		if err := s.Set(string(pairs[2*i+1])); err != nil {
			for j := i - 1; j >= 0; j-- {
				settings[j].Set(old[j])
			}
			c.W.Error("ERR CONFIG SET failed (possibly related to argument '" + s.Name + "') - " + err.Error())
			return
		}
	}
	c.W.OK()
}

// configResetStat: CONFIG RESETSTAT
func configResetStat(e *Engine, c *Client, args [][]byte) {
	e.counters.commands.Store(0)
	e.counters.connections.Store(0)
	e.counters.rejected.Store(0)
	e.counters.perCommand.Range(func(k, _ any) bool {
		e.counters.perCommand.Delete(k)
		return true
	})
	c.W.OK()
}

// configRewrite: CONFIG REWRITE writes the current settings into the
// config file the server started with, if any.
func configRewrite(e *Engine, c *Client, args [][]byte) {
	f := e.config.hooks.rewrite.Load()
	if f == nil {
		c.W.Error("ERR The server is running without a config file")
		return
	}
	if err := (*f)(); err != nil {
		c.W.Error("ERR Rewriting config file: " + err.Error())
		return
	}
	c.W.OK()
}

// functionFlush: FUNCTION FLUSH [ASYNC|SYNC]. There are no functions;
// test frameworks send it between tests.
func functionFlush(e *Engine, c *Client, args [][]byte) {
	switch {
	case len(args) > 3:
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" +
			truncate(string(cstr(args[1])), 128) + "'. Try FUNCTION HELP.")
	case len(args) == 3 && !optIs(args[2], "sync") && !optIs(args[2], "async"):
		c.W.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
	default:
		c.W.OK()
	}
}

// maxDebugSleep bounds DEBUG SLEEP, which holds a connection (and, inside
// MULTI, the whole keyspace).
const maxDebugSleep = 10 * time.Second

// debug: DEBUG SLEEP seconds; nothing else of Redis's DEBUG.
func debug(e *Engine, c *Client, args [][]byte) {
	if len(args) != 3 || !optIs(args[1], "sleep") {
		c.W.Error("ERR unknown subcommand or wrong number of arguments for '" +
			truncate(string(cstr(args[1])), 128) + "'. Try " +
			strings.ToUpper(string(args[0])) + " HELP.")
		return
	}
	secs, _ := strtodWhole(cstr(args[2]))
	if d := time.Duration(secs * float64(time.Second)); d > 0 {
		time.Sleep(min(d, maxDebugSleep))
	}
	c.W.OK()
}

// timeCmd: TIME
func timeCmd(e *Engine, c *Client, args [][]byte) {
	now := time.Now()
	c.W.Array(2)
	c.W.BulkString(strconv.FormatInt(now.Unix(), 10))
	c.W.BulkString(strconv.FormatInt(int64(now.Nanosecond()/1000), 10))
}

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
		errors += v.(*commandStat).failed.Load()
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
		calls, usec := st.calls.Load(), st.usec.Load()
		per := 0.0
		if calls > 0 {
			per = float64(usec) / float64(calls)
		}
		b.field("cmdstat_"+n, "calls="+strconv.FormatInt(calls, 10)+
			",usec="+strconv.FormatInt(usec, 10)+
			",usec_per_call="+strconv.FormatFloat(per, 'f', 2, 64)+
			",rejected_calls=0,failed_calls="+strconv.FormatInt(st.failed.Load(), 10))
	}
}

func infoKeyspace(e *Engine, c *Client, b *infoBuilder) {
	now := nowMS()
	for i, d := range e.dbs {
		live := e.liveKeys(i)
		if len(live) == 0 {
			continue
		}
		expires := 0
		for _, k := range live {
			if at, ok := d.expires[k]; ok && at > now {
				expires++
			}
		}
		b.field("db"+strconv.Itoa(i), "keys="+strconv.Itoa(len(live))+
			",expires="+strconv.Itoa(expires)+",avg_ttl=0")
	}
}

func borderCounts(bs *cluster.BorderStats) string {
	return "handoffs=" + strconv.FormatInt(bs.Handoffs.Load(), 10) +
		",flaps_suppressed=" + strconv.FormatInt(bs.FlapsSuppressed.Load(), 10) +
		",searches=" + strconv.FormatInt(bs.Searches.Load(), 10)
}

// infoShards is geoshard's own section: the region map, and per shard and
// per border the counters that tell an operator whether borders sit well.
func infoShards(e *Engine, c *Client, b *infoBuilder) {
	r := e.Router()
	m := r.Regions()
	st := r.Stats()
	b.field("region_map_version", m.Version())
	b.field("hysteresis_margin_m", strconv.FormatFloat(m.Margin(), 'f', -1, 64))
	b.int("shards", int64(m.Len()))
	b.int("position_ttl_ms", r.PositionTTL().Milliseconds())
	b.int("fanout_timeout_ms", r.FanoutTimeout().Milliseconds())
	members := r.ShardMembers()
	// A map of thousands of areas would make this section megabytes:
	// the busiest shards and borders are listed, and how many were not.
	ids, shardsLeft := st.TopShards(members, cluster.InfoLimit)
	for _, id := range ids {
		s := &st.Shards[id]
		var n int64
		if int(id) < len(members) {
			n = members[id]
		}
		b.field("shard_"+m.Name(id), "members="+strconv.FormatInt(n, 10)+
			",writes="+strconv.FormatInt(s.Writes.Load(), 10)+
			",handoffs_in="+strconv.FormatInt(s.HandoffsIn.Load(), 10)+
			",handoffs_out="+strconv.FormatInt(s.HandoffsOut.Load(), 10)+
			",searches="+strconv.FormatInt(s.Searches.Load(), 10)+
			",degraded="+strconv.FormatInt(s.Degraded.Load(), 10)+
			",expired="+strconv.FormatInt(s.Expired.Load(), 10))
	}
	if shardsLeft > 0 {
		b.int("shards_not_listed", int64(shardsLeft))
	}
	borders, bordersLeft := st.TopBorders(cluster.InfoLimit)
	for _, bd := range borders {
		b.field("border_"+m.Name(bd.A)+"_"+m.Name(bd.B), borderCounts(st.Border(bd.A, bd.B)))
	}
	if bordersLeft > 0 {
		b.int("borders_not_listed", int64(bordersLeft))
	}
	if st.Elsewhere.Handoffs.Load()+st.Elsewhere.FlapsSuppressed.Load() > 0 {
		// Members that jumped between shards that are not neighbours.
		b.field("border_elsewhere", borderCounts(&st.Elsewhere))
	}
	var fan strings.Builder
	for n := 1; n < len(st.FanOut); n++ {
		if n > 1 {
			fan.WriteByte(',')
		}
		fan.WriteString(strconv.Itoa(n))
		if n == len(st.FanOut)-1 {
			fan.WriteByte('+')
		}
		fan.WriteString("=" + strconv.FormatInt(st.FanOut[n].Load(), 10))
	}
	b.field("searches_by_shards", fan.String())
	b.int("degraded_searches", st.Degraded.Load())
}
