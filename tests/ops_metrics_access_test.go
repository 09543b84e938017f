package tests

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// httpFrom fetches url from a chosen local address, with a password as
// HTTP basic auth when pass is not "".
func httpFrom(t *testing.T, local, url, pass string) (int, string) {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c := http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}}}
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pass != "" {
		req.SetBasicAuth("default", pass)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s from %s: %v", url, local, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestOpsMetricsAccess: the metrics port follows the Redis port's rules:
// it listens on every bind address (and only there), protected mode
// keeps other addresses than 127.0.0.1 and ::1 out when there is no
// password, a password is needed when one is set, and pprof never hands
// out the command line (which may carry --requirepass).
func TestOpsMetricsAccess(t *testing.T) {
	// Set once the server runs: the harness's readiness PING has no password.
	withPassword := []string{"requirepass"}
	for _, tc := range []struct {
		name  string
		flags []string
		from  string
		path  string
		pass  string
		want  int
	}{
		{"protected, from 127.0.0.1", nil, "127.0.0.1", "/metrics", "", 200},
		{"protected, from 127.0.0.2", nil, "127.0.0.2", "/metrics", "", 403},
		{"protected, /map from 127.0.0.2", nil, "127.0.0.2", "/map", "", 403},
		{"protected-mode no, from 127.0.0.2", []string{"--protected-mode", "no"}, "127.0.0.2", "/metrics", "", 200},
		{"password, none given", withPassword, "127.0.0.1", "/metrics", "", 401},
		{"password, wrong one", withPassword, "127.0.0.1", "/map", "nope", 401},
		{"password, right one", withPassword, "127.0.0.2", "/metrics", "s3cret", 200},
		{"pprof cmdline", withPassword, "127.0.0.1", "/debug/pprof/cmdline", "s3cret", 404},
		{"pprof index", withPassword, "127.0.0.1", "/debug/pprof/", "s3cret", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := mustFreePort(t)
			password := len(tc.flags) == 1 && tc.flags[0] == "requirepass"
			flags := tc.flags
			if password {
				flags = nil
			}
			p := startOps(t, "geoshard", func(t *testing.T) []string {
				return append([]string{"--bind", "127.0.0.1", "127.0.0.3", "--metrics-port", strconv.Itoa(port),
					"--pprof", "yes"}, flags...)
			})
			if password {
				dialRaw(t, p).mustDo(t, "CONFIG", "SET", "requirepass", "s3cret")
			}
			for _, host := range []string{"127.0.0.1", "127.0.0.3"} {
				url := "http://" + net.JoinHostPort(host, strconv.Itoa(port)) + tc.path
				status, body := httpFrom(t, tc.from, url, tc.pass)
				if status != tc.want {
					t.Errorf("GET %s from %s: %d, want %d (%.100s)", url, tc.from, status, tc.want, body)
				}
				if strings.Contains(body, "s3cret") {
					t.Errorf("GET %s shows the password", url)
				}
			}
		})
	}
	// Not on an address it was not told to bind.
	port := mustFreePort(t)
	startOps(t, "geoshard", func(t *testing.T) []string {
		return []string{"--metrics-port", strconv.Itoa(port)}
	})
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.4", strconv.Itoa(port)), 2*time.Second); err == nil {
		c.Close()
		t.Error("the metrics port answers on 127.0.0.4, which is not in bind")
	}
}
