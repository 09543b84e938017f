package server

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrepareCluster: where the bus and etcd passwords come from, which
// start-ups are refused, and the per-node snapshot name.
func TestPrepareCluster(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pwFile := write("pw", "from-file\r\nsecond line\n")
	empty := write("empty", "\n")
	base := []string{"--cluster-etcd", "127.0.0.1:2379", "--node-id", "n/1", "--position-ttl", "60"}
	cases := []struct {
		name     string
		args     []string
		env      string
		wantErr  string // "" : starts
		wantPass string
		wantFile string // dbfilename
	}{
		{name: "no password", wantErr: "needs a cluster password"},
		{name: "insecure", args: []string{"--cluster-insecure", "yes"}, wantFile: "dump-n_1.gsnap"},
		{name: "direct", args: []string{"--cluster-password", "direct", "--cluster-password-file", pwFile},
			env: "from-env", wantPass: "direct", wantFile: "dump-n_1.gsnap"},
		{name: "file over env", args: []string{"--cluster-password-file", pwFile}, env: "from-env", wantPass: "from-file"},
		{name: "env", env: "from-env", wantPass: "from-env"},
		{name: "missing file", args: []string{"--cluster-password-file", filepath.Join(dir, "nope")}, wantErr: "cluster-password-file"},
		{name: "empty file", args: []string{"--cluster-password-file", empty}, env: "from-env", wantErr: "first line is empty"},
		{name: "directory as file", args: []string{"--cluster-password-file", dir}, wantErr: "regular file"},
		{name: "own dbfilename kept", args: []string{"--cluster-password", "x", "--dbfilename", "mine.gsnap"},
			wantPass: "x", wantFile: "mine.gsnap"},
		{name: "etcd password without user", args: []string{"--cluster-password", "x", "--cluster-etcd-password", "y"},
			wantErr: "cluster-etcd-user"},
		{name: "tls-cluster without certificates", args: []string{"--cluster-password", "x", "--tls-cluster", "yes"},
			wantErr: "tls-cluster needs"},
		{name: "lease below a second", args: []string{"--cluster-password", "x", "--cluster-lease-ttl", "0.5"},
			wantErr: "whole number of seconds"},
		{name: "lease of a second and a half", args: []string{"--cluster-password", "x", "--cluster-lease-ttl", "1.5"},
			wantErr: "whole number of seconds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envClusterPassword, c.env)
			o, err := ParseArgs(append(append([]string{}, base...), c.args...))
			if err != nil {
				t.Fatal(err)
			}
			err = o.prepareCluster()
			switch {
			case c.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, c.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if c.wantPass != "" && o.Cluster.Password != c.wantPass {
				t.Errorf("password %q, want %q", o.Cluster.Password, c.wantPass)
			}
			if c.wantFile != "" && o.Snapshot.DBFilename != c.wantFile {
				t.Errorf("dbfilename %q, want %q", o.Snapshot.DBFilename, c.wantFile)
			}
		})
	}
}

// TestSecretsNotShown: CONFIG GET has no cluster or etcd password, and
// CONFIG REWRITE neither writes one nor drops the line the file has.
func TestSecretsNotShown(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "g.conf")
	if err := os.WriteFile(conf, []byte("cluster-password-file /etc/pw\ncluster-password kept-as-is\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err := ParseArgs([]string{conf, "--cluster-etcd-password", "etcd-secret", "--port", "0", "--dir", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(o, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	c := s.cfg
	for _, name := range []string{"cluster-password", "cluster-etcd-password"} {
		if _, ok := c.Lookup(name); ok {
			t.Errorf("CONFIG GET knows %s", name)
		}
	}
	if st, ok := c.Lookup("cluster-password-file"); !ok || st.Get() != "/etc/pw" {
		t.Errorf("cluster-password-file not shown as set")
	}
	if err := s.rewriteConfig(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(conf)
	if strings.Contains(string(data), "etcd-secret") || !strings.Contains(string(data), "cluster-password kept-as-is\n") ||
		!strings.Contains(string(data), "port 0\n") {
		t.Errorf("rewritten config:\n%s", data)
	}
}
