package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/commands"
	"geoshard/router"
	"geoshard/shard"
)

// shutdownGrace bounds how long, once the server is stopping, a reply may
// take to reach a client that does not read it.
const shutdownGrace = 500 * time.Millisecond

// Server accepts Redis-protocol clients and runs their commands.
type Server struct {
	opts    Options
	log     *slog.Logger
	engine  *commands.Engine
	cfg     *commands.Config
	metrics *metrics
	tls     *tls.Config // nil without tls-port

	maxBulkLen  atomic.Int64
	regionsFile atomic.Pointer[string] // the region map in use; "" for the embedded one
	maxClients  atomic.Int64
	timeout     atomic.Int64 // ns
	protected   atomic.Bool
	outputLimit atomic.Pointer[OutputLimit]
	stopping    atomic.Bool // set once shutdown begins
	reclaiming  atomic.Bool // a garbage collection is due (reclaim.go)

	mu        sync.Mutex
	listeners []net.Listener
	httpLns   []net.Listener // /metrics on every bind address; none when metrics-port is 0
	conns     map[net.Conn]struct{}
	closing   bool
	wg        sync.WaitGroup
	stop      context.CancelFunc // ends Serve; set while it runs
	snap      snapshotState      // snapshot.go
	replies   replyPool          // big reply buffers, shared by connections (replybuf.go)
}

// New builds a server from its options: it loads the region map and
// creates the shards, but does not listen yet.
func New(o Options, log *slog.Logger) (*Server, error) {
	if err := o.prepareCluster(); err != nil {
		return nil, err
	}
	regions := shard.DefaultMap()
	if o.Regions != "" {
		m, err := loadRegionFile(o.Regions)
		if err != nil {
			return nil, fmt.Errorf("region map %s: %w", o.Regions, err)
		}
		regions = m
	}
	r := router.New(router.Config{
		Regions:       regions,
		PositionTTL:   o.PositionTTL,
		FanoutTimeout: o.FanoutTimeout,
		Logger:        log,
	})
	s := &Server{opts: o, log: log, conns: make(map[net.Conn]struct{})}
	s.regionsFile.Store(&o.Regions)
	s.maxBulkLen.Store(o.ProtoMaxBulkLen)
	s.maxClients.Store(int64(o.MaxClients))
	s.timeout.Store(int64(o.Timeout))
	s.protected.Store(o.ProtectedMode)
	lim := o.OutputLimit
	s.outputLimit.Store(&lim)
	if o.TLSPort != 0 {
		tc, err := loadTLS(o)
		if err != nil {
			return nil, err
		}
		s.tls = tc
	}
	s.cfg = s.config()
	s.metrics = newMetrics(s)
	s.cfg.ObserveCommands(s.metrics.observeCommand)
	s.cfg.OnShutdown(s.requestShutdown)
	if o.ConfigFile != "" {
		s.cfg.SetConfigFile(o.ConfigFile)
		s.cfg.OnRewrite(s.rewriteConfig)
	}
	s.engine = commands.New(r, s.cfg)
	if err := s.loadSnapshot(); err != nil {
		return nil, err
	}
	return s, nil
}

// Router returns the server's router (a new one after a region map reload).
func (s *Server) Router() *router.Router { return s.engine.Router() }

// Listen opens the listening sockets: the Redis port (and the TLS port)
// on every bind address, and the metrics port too.
func (s *Server) Listen() error {
	ports := []int{s.opts.Port}
	if s.tls != nil {
		ports = append(ports, s.opts.TLSPort)
	}
	for i, port := range ports {
		for _, host := range s.opts.Bind {
			ln, err := listen(host, port)
			if err != nil {
				s.closeListeners()
				return err
			}
			if i == 1 {
				ln = tls.NewListener(ln, s.tls)
			}
			s.listeners = append(s.listeners, ln)
		}
	}
	if s.opts.MetricsPort != 0 {
		// On the bind addresses, as the Redis port: bind says where the
		// server may be reached, whatever the protocol.
		for _, host := range s.opts.Bind {
			ln, err := listen(host, s.opts.MetricsPort)
			if err != nil {
				s.closeListeners()
				return fmt.Errorf("metrics: %w", err)
			}
			s.httpLns = append(s.httpLns, ln)
		}
	}
	s.removeStaleTemps()
	return nil
}

func listen(host string, port int) (net.Listener, error) {
	host = strings.TrimPrefix(host, "-") // redis.conf's "optional address" mark
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("listen on %s port %d: %w", host, port, err)
	}
	return ln, nil
}

// Addr returns the first listening address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.listeners[0].Addr() }

// Serve accepts clients until ctx ends or a client sends SHUTDOWN, then
// shuts down: it stops accepting, lets every connection finish the
// commands it has read and send their replies, and returns when all are
// closed.
func (s *Server) Serve(ctx context.Context) error {
	leave, cerr := s.joinCluster()
	if cerr != nil {
		s.closeListeners()
		return cerr
	}
	defer leave()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.mu.Lock()
	s.stop = stop
	s.mu.Unlock()
	bg, stopBG := context.WithCancel(context.Background())
	defer stopBG()
	// Background work, each on whatever router is in force: expired
	// positions (every second), expired keys (ten times a second, as
	// Redis's active expiry) and the save schedule (BGSAVE when a point of
	// it is reached; a failed save is retried only after 5 s, as Redis does).
	go every(bg, time.Second, func() { s.Router().Reclaim() })
	go every(bg, 100*time.Millisecond, s.engine.ExpireCycle)
	go every(bg, 100*time.Millisecond, s.maybeSave)
	errc := make(chan error, len(s.listeners)+len(s.httpLns))
	var web *http.Server
	if len(s.httpLns) > 0 {
		web = &http.Server{Handler: s.httpHandler(), ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
		for _, ln := range s.httpLns {
			go func() {
				if err := web.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
					errc <- fmt.Errorf("metrics: %w", err)
				}
			}()
		}
	}
	for _, ln := range s.listeners {
		go func() { errc <- s.accept(ln) }()
	}
	s.log.Info("ready to accept connections", "addr", s.Addr().String(),
		"shards", s.Router().Regions().Len(), "regions", s.Router().Regions().Version())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.shutdown()
	if serr := s.finalSave(); err == nil {
		err = serr
	}
	if web != nil {
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		web.Shutdown(sctx)
		cancel()
	}
	return err
}

// requestShutdown is SHUTDOWN's hook: it ends Serve, which saves a
// snapshot as mode asks once the clients are gone (see shutdownSave).
func (s *Server) requestShutdown(mode commands.ShutdownMode) error {
	if err := s.shutdownSave(mode); err != nil {
		return err
	}
	s.mu.Lock()
	stop := s.stop
	s.mu.Unlock()
	if stop == nil {
		return errors.New("server is not serving")
	}
	s.log.Warn("user requested shutdown")
	stop()
	return nil
}

func (s *Server) accept(ln net.Listener) error {
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			// Out of file descriptors and the like: wait, as
			// net/http does, rather than give up serving.
			s.log.Warn("accept failed", "err", err)
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if !s.track(nc) {
			nc.Close()
			continue
		}
		go s.serveConn(nc)
	}
}

// track registers a connection unless the server is closing.
func (s *Server) track(nc net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[nc] = struct{}{}
	s.wg.Add(1)
	return true
}

func (s *Server) untrack(nc net.Conn) {
	s.mu.Lock()
	delete(s.conns, nc)
	s.mu.Unlock()
	s.wg.Done()
}

func (s *Server) closeListeners() {
	for _, ln := range s.listeners {
		ln.Close()
	}
	for _, ln := range s.httpLns {
		ln.Close()
	}
}

func (s *Server) shutdown() {
	s.stopping.Store(true)
	s.mu.Lock()
	s.closing = true
	s.closeListeners()
	// Wake every reader: a connection runs the commands it has already
	// read, sends their replies and closes (see serveConn). A client that
	// does not read its replies gets shutdownGrace, not for ever.
	for nc := range s.conns {
		nc.SetReadDeadline(time.Now())
		nc.SetWriteDeadline(time.Now().Add(shutdownGrace))
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.log.Info("server stopped")
}

// every runs fn at each tick of interval until ctx ends.
func every(ctx context.Context, interval time.Duration, fn func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			fn()
		}
	}
}
