package commands

import (
	"crypto/subtle"
	"strconv"
	"strings"
	"time"

	"geoshard/geo"
)

func init() {
	conn := []string{"noscript", "loading", "stale"}
	register(
		&command{name: "ping", arity: -1, flags: []string{"fast"}, handler: ping, inert: true},
		&command{name: "echo", arity: 2, flags: []string{"loading", "stale", "fast"}, handler: echo, inert: true},
		&command{name: "quit", arity: -1, flags: []string{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}, handler: quit, noAuth: true},
		&command{name: "reset", arity: 1, flags: []string{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}, handler: reset, noAuth: true},
		&command{name: "hello", arity: -1, flags: []string{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}, handler: hello, noAuth: true},
		&command{name: "auth", arity: -2, flags: []string{"noscript", "loading", "stale", "fast", "no_auth", "allow_busy"}, handler: auth, noAuth: true},
		&command{name: "client|setname", arity: 3, flags: conn, handler: clientSetName},
		&command{name: "client|getname", arity: 2, flags: conn, handler: clientGetName},
		&command{name: "client|id", arity: 2, flags: conn, handler: clientID},
		&command{name: "client|info", arity: 2, flags: conn, handler: clientInfo},
		&command{name: "client|list", arity: -2, flags: []string{"admin", "noscript", "loading", "stale"}, handler: clientListCmd},
		&command{name: "client|no-evict", arity: 3, flags: []string{"admin", "noscript", "loading", "stale"}, handler: clientNoEvict},
		// SETINFO is Redis 7.2's; go-redis and others send it on connect.
		&command{name: "client|setinfo", arity: 4, flags: conn, handler: clientSetInfo},
	)
}

const errWrongPass = "WRONGPASS invalid username-password pair or user is disabled."

// ping: PING [message]
func ping(e *Engine, c *Client, args [][]byte) {
	switch len(args) {
	case 1:
		c.W.Simple("PONG")
	case 2:
		c.W.Bulk(args[1])
	default:
		c.W.Error("ERR wrong number of arguments for 'ping' command")
	}
}

// echo: ECHO message
func echo(e *Engine, c *Client, args [][]byte) { c.W.Bulk(args[1]) }

// quit: QUIT. The server closes the connection once the reply is out.
func quit(e *Engine, c *Client, args [][]byte) {
	c.endMulti()
	c.quit = true
	c.W.OK()
}

// reset: RESET puts the connection back as it was when it opened.
func reset(e *Engine, c *Client, args [][]byte) {
	c.info.Lock()
	c.db = 0
	c.W.Proto = 2
	c.name = ""
	c.multi = nil
	c.info.Unlock()
	c.multiFailed = false
	c.authenticated = false
	c.W.Simple("RESET")
}

// authenticate checks a user and password as Redis's ACL does for the
// only user there is, "default": with no requirepass any password will
// do. The password is compared in constant time.
func (e *Engine) authenticate(c *Client, user, pass []byte) bool {
	if string(user) != "default" {
		return false
	}
	want := e.config.RequirePass()
	if want != "" && subtle.ConstantTimeCompare([]byte(want), pass) != 1 {
		return false
	}
	c.authenticated = true
	return true
}

// auth: AUTH [username] password
func auth(e *Engine, c *Client, args [][]byte) {
	if len(args) > 3 {
		c.W.Error(errSyntax)
		return
	}
	user, pass := []byte("default"), args[len(args)-1]
	if len(args) == 2 {
		if e.config.RequirePass() == "" {
			c.W.Error("ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?")
			return
		}
	} else {
		user = args[1]
	}
	if !e.authenticate(c, user, pass) {
		c.W.Error(errWrongPass)
		return
	}
	c.W.OK()
}

// hello: HELLO [protover [AUTH username password] [SETNAME clientname]].
// As in Redis 7.0, options take effect one by one, so a name set before a
// bad option stays.
func hello(e *Engine, c *Client, args [][]byte) {
	ver := 0
	if len(args) >= 2 {
		v, ok := geo.ParseInt(args[1])
		if !ok {
			c.W.Error("ERR Protocol version is not an integer or out of range")
			return
		}
		if v < 2 || v > 3 {
			c.W.Error("NOPROTO unsupported protocol version")
			return
		}
		ver = int(v)
	}
	for j := 2; j < len(args); j++ {
		more := len(args) - 1 - j
		switch a := args[j]; {
		case optIs(a, "auth") && more >= 2:
			if !e.authenticate(c, args[j+1], args[j+2]) {
				c.W.Error(errWrongPass)
				return
			}
			j += 2
		case optIs(a, "setname") && more >= 1:
			if !c.setName(args[j+1]) {
				return
			}
			j++
		default:
			c.W.Error("ERR Syntax error in HELLO option '" + string(cstr(a)) + "'")
			return
		}
	}
	if !c.authenticated && e.config.RequirePass() != "" {
		c.W.Error("NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time")
		return
	}
	if ver != 0 {
		c.info.Lock()
		c.W.Proto = ver
		c.info.Unlock()
	}
	c.W.Map(7)
	c.W.BulkString("server")
	c.W.BulkString("redis")
	c.W.BulkString("version")
	c.W.BulkString(RedisVersion)
	c.W.BulkString("proto")
	c.W.Int(int64(c.W.Proto))
	c.W.BulkString("id")
	c.W.Int(c.id)
	c.W.BulkString("mode")
	c.W.BulkString("standalone")
	c.W.BulkString("role")
	c.W.BulkString("master")
	c.W.BulkString("modules")
	c.W.Array(0)
}

// RedisVersion is the Redis release whose behaviour geoshard reproduces,
// as HELLO and INFO report it.
const RedisVersion = "7.0.15"

// setName sets or (with "") clears the client's name, refusing what would
// break CLIENT LIST's format; it answers the error itself.
func (c *Client) setName(name []byte) bool {
	for _, ch := range name {
		if ch < '!' || ch > '~' {
			c.W.Error("ERR Client names cannot contain spaces, newlines or special characters.")
			return false
		}
	}
	c.info.Lock()
	c.name = string(name)
	c.info.Unlock()
	return true
}

// clientSetName: CLIENT SETNAME name
func clientSetName(e *Engine, c *Client, args [][]byte) {
	if c.setName(args[2]) {
		c.W.OK()
	}
}

// clientGetName: CLIENT GETNAME
func clientGetName(e *Engine, c *Client, args [][]byte) {
	if c.name == "" {
		c.W.Null()
		return
	}
	c.W.BulkString(c.name)
}

// clientID: CLIENT ID
func clientID(e *Engine, c *Client, args [][]byte) { c.W.Int(c.id) }

// clientSetInfo: CLIENT SETINFO LIB-NAME|LIB-VER value
func clientSetInfo(e *Engine, c *Client, args [][]byte) {
	attr := cstr(args[2])
	var dst *string
	switch {
	case eq(attr, "lib-name"):
		dst = &c.libName
	case eq(attr, "lib-ver"):
		dst = &c.libVer
	default:
		c.W.Error("ERR Unrecognized option '" + string(attr) + "'")
		return
	}
	for _, ch := range args[3] {
		if ch < '!' || ch > '~' {
			c.W.Error("ERR " + string(attr) + " cannot contain spaces, newlines or special characters.")
			return
		}
	}
	c.info.Lock()
	*dst = string(args[3])
	c.info.Unlock()
	c.W.OK()
}

// clientNoEvict: CLIENT NO-EVICT ON|OFF. Nothing here evicts clients, so
// only the argument is checked.
func clientNoEvict(e *Engine, c *Client, args [][]byte) {
	if !optIs(args[2], "on") && !optIs(args[2], "off") {
		c.W.Error(errSyntax)
		return
	}
	c.W.OK()
}

// clientInfo: CLIENT INFO
func clientInfo(e *Engine, c *Client, args [][]byte) {
	c.W.Verbatim(string(e.clientLine(nil, c, time.Now())))
}

// clientListCmd: CLIENT LIST [TYPE normal|master|replica|pubsub] [ID id ...]
func clientListCmd(e *Engine, c *Client, args [][]byte) {
	now := time.Now()
	var out []byte
	switch {
	case len(args) == 4 && optIs(args[2], "type"):
		t := cstr(args[3])
		switch {
		case eq(t, "normal"):
			for _, cl := range e.clients.all() {
				out = e.clientLine(out, cl, now)
			}
		case eq(t, "master"), eq(t, "replica"), eq(t, "slave"), eq(t, "pubsub"):
		default:
			c.W.Error("ERR Unknown client type '" + string(t) + "'")
			return
		}
	case len(args) > 3 && optIs(args[2], "id"):
		for _, a := range args[3:] {
			id, ok := geo.ParseInt(a)
			if !ok {
				c.W.Error("ERR Invalid client ID")
				return
			}
			if cl := e.clients.lookup(id); cl != nil {
				out = e.clientLine(out, cl, now)
			}
		}
	case len(args) != 2:
		c.W.Error(errSyntax)
		return
	default:
		for _, cl := range e.clients.all() {
			out = e.clientLine(out, cl, now)
		}
	}
	c.W.Verbatim(string(out))
}

// lookup returns a connected client by id.
func (l *clientList) lookup(id int64) *Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

// clientLine appends one CLIENT LIST line in Redis 7.0's format. Buffer
// and memory figures Redis keeps per connection are not tracked here and
// read 0.
func (e *Engine) clientLine(dst []byte, cl *Client, now time.Time) []byte {
	cl.info.Lock()
	name, db, proto := cl.name, cl.db, cl.W.Proto
	multi := -1
	flags := "N"
	if cl.multi != nil {
		multi = len(*cl.multi)
		flags = "x"
	}
	cl.info.Unlock()
	cmd := "NULL"
	if last := cl.lastCmd.Load(); last != nil {
		cmd = last.fullName()
	}
	var b strings.Builder
	b.WriteString("id=" + strconv.FormatInt(cl.id, 10))
	b.WriteString(" addr=" + cl.addr)
	b.WriteString(" laddr=" + cl.laddr)
	b.WriteString(" fd=-1")
	b.WriteString(" name=" + name)
	b.WriteString(" age=" + strconv.FormatInt(int64(now.Sub(cl.created)/time.Second), 10))
	b.WriteString(" idle=0")
	b.WriteString(" flags=" + flags)
	b.WriteString(" db=" + strconv.Itoa(db))
	b.WriteString(" sub=0 psub=0 ssub=0")
	b.WriteString(" multi=" + strconv.Itoa(multi))
	b.WriteString(" qbuf=0 qbuf-free=0 argv-mem=0 multi-mem=0 rbs=0 rbp=0 obl=0 oll=0 omem=0 tot-mem=0 events=r")
	b.WriteString(" cmd=" + cmd)
	b.WriteString(" user=default redir=-1")
	b.WriteString(" resp=" + strconv.Itoa(proto))
	b.WriteByte('\n')
	return append(dst, b.String()...)
}
