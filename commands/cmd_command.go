package commands

//go:generate go run gen_meta.go

import (
	"bytes"
	"sort"
	"strconv"
	"strings"

	"geoshard/resp"
)

func init() {
	introspect := []string{"loading", "stale"}
	register(
		&command{name: "command", arity: -1, flags: introspect, handler: commandAll},
		&command{name: "command|info", arity: -2, flags: introspect, handler: commandInfo},
		&command{name: "command|docs", arity: -2, flags: introspect, handler: commandDocs},
		&command{name: "command|count", arity: 2, flags: introspect, handler: commandCount},
		&command{name: "command|list", arity: -2, flags: introspect, handler: commandList},
	)
}

// commandMeta is what COMMAND INFO and COMMAND DOCS say about a command
// beyond the table: Redis's own data (cmd_command_meta.go, generated).
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
