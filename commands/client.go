package commands

import (
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/resp"
)

// Client is one connection's state.
type Client struct {
	W resp.Writer // replies waiting to be sent

	id   int64
	slot int // of the engine's hot counters and keyspace lock (spread.go)
	db   int
	// info guards what CLIENT LIST reads from other connections.
	info          sync.Mutex
	name          string
	libName       string
	libVer        string
	addr, laddr   string
	created       time.Time
	lastCmd       atomic.Pointer[command] // nil until the first known command
	authenticated bool
	multi         *[]queued // commands queued since MULTI; nil outside one
	multiFailed   bool      // a queued command was rejected: EXEC aborts
	quit          bool
	// prepared is what the running command's prepare step left for its
	// handler; nil otherwise. Only the connection's goroutine uses it.
	prepared any
	// kindLookups is how many key-kind lookups the running command's
	// prepare steps counted pending (kindlookup.go).
	kindLookups int64
	// changes is what the running write command changed, for the save
	// schedule; counted says the command reported it (see Engine.guarded).
	changes int64
	counted bool
	// shared says the running command holds its keyspace lock slot
	// shared, until Engine.letGo.
	shared bool
	// held is what the running command holds of the key locks
	// (keylocks.go).
	held heldKeys
	// The counters of the last command run (Client.statOf), valid while
	// statGen matches the engine's.
	statCmd *command
	stat    *commandStat
	statGen int64
}

// changed records that the running command changed n elements (members
// added or moved, keys deleted), as Redis adds to its dirty counter.
func (c *Client) changed(n int) {
	c.changes += int64(n)
	c.counted = true
}

// NewClient registers a new connection with the engine.
func (e *Engine) NewClient(addr, laddr string) *Client {
	c := &Client{
		W:       resp.Writer{Proto: 2},
		addr:    addr,
		laddr:   laddr,
		created: time.Now(),
	}
	// As in Redis, a connection opened while no password is set stays
	// authenticated if one is set later.
	c.authenticated = e.config.RequirePass() == ""
	e.counters.connections.Add(1)
	e.clients.add(c)
	return c
}

// Close forgets a connection.
func (e *Engine) Close(c *Client) { e.clients.remove(c) }

// isLocal reports whether the client connected from 127.0.0.1 or ::1
// (or not over IP at all), as Redis's islocalClient.
func (c *Client) isLocal() bool {
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return true
	}
	return host == "127.0.0.1" || host == "::1"
}

// AuthRequired reports whether the client must still give the password,
// as Redis's authRequired: the protocol reader then applies its limits
// for unauthenticated clients.
func (e *Engine) AuthRequired(c *Client) bool {
	return !c.authenticated && e.config.RequirePass() != ""
}

// Quit reports whether the client asked to close the connection (QUIT).
func (c *Client) Quit() bool { return c.quit }

// ID returns the client's id, as CLIENT ID reports it.
func (c *Client) ID() int64 { return c.id }

type clientList struct {
	mu     sync.Mutex
	nextID int64
	byID   map[int64]*Client
}

func (l *clientList) add(c *Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.nextID++
	c.id = l.nextID
	c.slot = slotOf(c.id)
	l.byID[c.id] = c
}

func (l *clientList) remove(c *Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.byID, c.id)
}

// all returns the connected clients in id order.
func (l *clientList) all() []*Client {
	l.mu.Lock()
	out := make([]*Client, 0, len(l.byID))
	for _, c := range l.byID {
		out = append(out, c)
	}
	l.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

func (l *clientList) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.byID)
}

// Clients returns how many clients are connected.
func (e *Engine) Clients() int { return e.clients.len() }
