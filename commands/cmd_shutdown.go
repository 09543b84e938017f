package commands

// ShutdownMode is what SHUTDOWN asked about saving a snapshot first.
type ShutdownMode int

// The saving modes of SHUTDOWN [NOSAVE|SAVE].
const (
	ShutdownDefault ShutdownMode = iota // save if snapshots are configured
	ShutdownSave                        // SAVE: save even if none are
	ShutdownNoSave                      // NOSAVE: do not save
)

// ShutdownFunc starts stopping the server. It returns at once; an error
// means the server will not stop (a snapshot it had to write failed).
type ShutdownFunc func(mode ShutdownMode) error

// OnShutdown sets what SHUTDOWN calls. Without it SHUTDOWN fails.
func (c *Config) OnShutdown(f ShutdownFunc) { c.hooks.shutdown.Store(&f) }

func init() {
	register(&command{name: "shutdown", arity: -1,
		flags:   []string{"admin", "noscript", "loading", "stale", "no_multi", "allow_busy"},
		handler: shutdown})
}

// shutdown: SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. On success, as
// in Redis, there is no reply: the connection closes once the replies
// before it are sent, and the server exits after finishing every other
// client's commands. NOW and FORCE change nothing here: there are no
// replicas to wait for.
func shutdown(e *Engine, c *Client, args [][]byte) {
	mode := ShutdownDefault
	save, nosave, abort := false, false, false
	for _, a := range args[1:] {
		switch {
		case optIs(a, "nosave"):
			nosave = true
		case optIs(a, "save"):
			save = true
		case optIs(a, "now"), optIs(a, "force"):
		case optIs(a, "abort"):
			abort = true
		default:
			c.W.Error(errSyntax)
			return
		}
	}
	switch {
	case (abort && len(args) > 2) || (save && nosave):
		c.W.Error(errSyntax)
		return
	case abort:
		c.W.Error("ERR No shutdown in progress.")
		return
	case save:
		mode = ShutdownSave
	case nosave:
		mode = ShutdownNoSave
	}
	f := e.config.hooks.shutdown.Load()
	if f == nil || (*f)(mode) != nil {
		c.W.Error("ERR Errors trying to SHUTDOWN. Check logs.")
		return
	}
	c.endMulti()
	c.quit = true
}
