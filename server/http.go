package server

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"geoshard/mapview"
)

// httpHandler serves the metrics port: /metrics for Prometheus, /map for
// people, and /debug/pprof/ when the pprof directive allows it (it is off
// by default: profiles show what the server holds). The command line is
// not served: it may carry --requirepass.
func (s *Server) httpHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{
		ErrorLog: promLogger{s},
	}))
	mv := mapview.Live(s.Router, mapview.Options{Tiles: s.opts.MapTiles})
	mux.Handle("/map", mv)
	mux.Handle("/map/", mv)
	if s.opts.Pprof {
		mux.HandleFunc("/debug/pprof/", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/debug/pprof/cmdline" {
				http.NotFound(w, r)
				return
			}
			pprof.Index(w, r)
		})
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return s.httpGuard(mux)
}

// httpGuard applies the Redis port's access rules to the metrics port:
// with requirepass set, every request must give it (HTTP basic auth, any
// user name); without one, protected mode admits 127.0.0.1 and ::1 only.
func (s *Server) httpGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if pass := s.cfg.RequirePass(); pass != "" {
			_, given, ok := r.BasicAuth()
			if !ok || subtle.ConstantTimeCompare([]byte(given), []byte(pass)) != 1 {
				w.Header().Set("WWW-Authenticate", `Basic realm="geoshard"`)
				http.Error(w, "the server's requirepass is needed (HTTP basic auth, any user)", http.StatusUnauthorized)
				return
			}
		} else if s.protected.Load() && !isLoopbackHost(r.RemoteAddr) {
			http.Error(w, "protected mode: with no requirepass, only 127.0.0.1 and ::1 may connect", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackHost is isLoopback for an HTTP request's "host:port".
func isLoopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// promLogger passes the metrics handler's errors to the server log.
type promLogger struct{ s *Server }

func (l promLogger) Println(v ...any) { l.s.log.Warn("metrics", "err", v) }
