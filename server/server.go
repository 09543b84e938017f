package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"geoshard/cluster"
	"geoshard/commands"
	"geoshard/shard"
)

// Server accepts Redis-protocol clients and runs their commands.
type Server struct {
	opts   Options
	log    *slog.Logger
	router *cluster.Router
	engine *commands.Engine

	maxBulkLen atomic.Int64
	maxClients atomic.Int64
	timeout    atomic.Int64 // ns

	mu        sync.Mutex
	listeners []net.Listener
	conns     map[net.Conn]struct{}
	closing   bool
	wg        sync.WaitGroup
}

// New builds a server from its options: it loads the region map and
// creates the shards, but does not listen yet.
func New(o Options, log *slog.Logger) (*Server, error) {
	regions := shard.DefaultMap()
	if o.Regions != "" {
		m, err := shard.LoadMapFile(o.Regions)
		if err != nil {
			return nil, fmt.Errorf("region map %s: %w", o.Regions, err)
		}
		regions = m
	}
	r := cluster.New(cluster.Config{
		Regions:       regions,
		PositionTTL:   o.PositionTTL,
		FanoutTimeout: o.FanoutTimeout,
		Logger:        log,
	})
	s := &Server{opts: o, log: log, router: r, conns: make(map[net.Conn]struct{})}
	s.maxBulkLen.Store(o.ProtoMaxBulkLen)
	s.maxClients.Store(int64(o.MaxClients))
	s.timeout.Store(int64(o.Timeout))
	s.engine = commands.New(r, s.config())
	return s, nil
}

// Router returns the server's router.
func (s *Server) Router() *cluster.Router { return s.router }

// Listen opens the listening sockets, one per bind address.
func (s *Server) Listen() error {
	for _, host := range s.opts.Bind {
		host = strings.TrimPrefix(host, "-") // redis.conf's "optional address" mark
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(s.opts.Port)))
		if err != nil {
			s.closeListeners()
			return fmt.Errorf("listen on %s port %d: %w", host, s.opts.Port, err)
		}
		s.listeners = append(s.listeners, ln)
	}
	return nil
}

// Addr returns the first listening address (useful with port 0).
func (s *Server) Addr() net.Addr { return s.listeners[0].Addr() }

// Serve accepts clients until ctx ends, then shuts down: it stops
// accepting, lets every connection finish the command it is running, and
// returns when all are closed.
func (s *Server) Serve(ctx context.Context) error {
	bg, stop := context.WithCancel(ctx)
	defer stop()
	go s.router.Run(bg, time.Second)
	go s.expireLoop(bg)
	errc := make(chan error, len(s.listeners))
	for _, ln := range s.listeners {
		go func() { errc <- s.accept(ln) }()
	}
	s.log.Info("ready to accept connections", "addr", s.Addr().String(),
		"shards", s.router.Regions().Len(), "regions", s.router.Regions().Version())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.shutdown()
	return err
}

func (s *Server) expireLoop(ctx context.Context) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.engine.ExpireCycle()
		}
	}
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
			return fmt.Errorf("accept: %w", err)
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
}

func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	s.closeListeners()
	// Unblock readers; a command already running finishes and its reply
	// write fails or succeeds on its own.
	for nc := range s.conns {
		if tc, ok := nc.(*net.TCPConn); ok {
			tc.CloseRead()
		} else {
			nc.SetReadDeadline(time.Now())
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.log.Info("server stopped")
}
