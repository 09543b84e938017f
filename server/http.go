package server

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"geoshard/mapview"
)

// httpHandler serves the metrics port: /metrics for Prometheus, /map for
// people, and /debug/pprof/ when the pprof directive allows it (it is off
// by default: profiles show what the server holds).
func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{
		ErrorLog: promLogger{s},
	}))
	mv := mapview.Live(s.Router, mapview.Options{Tiles: s.opts.MapTiles})
	mux.Handle("/map", mv)
	mux.Handle("/map/", mv)
	if s.opts.Pprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// promLogger passes the metrics handler's errors to the server log.
type promLogger struct{ s *Server }

func (l promLogger) Println(v ...any) { l.s.log.Warn("metrics", "err", v) }
