package server

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"geoshard/cluster"
)

// ClusterOptions are the directives of cluster mode. With no
// cluster-etcd the server is a single node and never talks to etcd.
type ClusterOptions struct {
	Etcd      []string      // "cluster-etcd": etcd endpoints
	Name      string        // "cluster-name": the cluster's key prefix in etcd
	NodeID    string        // "node-id": unique in the cluster
	Advertise string        // "advertise": host:port other nodes dial; "" = the listening address
	BusPort   int           // "cluster-bus-port": node-to-node listener; 0 = any free port
	LeaseTTL  time.Duration // "cluster-lease-ttl": membership lease, seconds
	Rebalance time.Duration // "cluster-rebalance-interval": between rebalancing steps, seconds
	Replicas  int           // "cluster-replicas": 1 (default) keeps a copy of every shard on a second node, 0 none

	fanoutGiven bool // fanout-timeout was set: the cluster default does not apply

	// The bus password: "cluster-password", else the first line of
	// "cluster-password-file", else $GEOSHARD_CLUSTER_PASSWORD. Without
	// one, cluster mode starts only with "cluster-insecure yes".
	Password     string
	PasswordFile string
	Insecure     bool
	TLS          bool // "tls-cluster": the bus over mutual TLS with tls-cert-file

	// etcd's client side: TLS (a CA, and a client certificate), and/or a
	// user whose password comes as the bus's does ($GEOSHARD_ETCD_PASSWORD).
	EtcdCACert, EtcdCert, EtcdKey            string
	EtcdUser, EtcdPassword, EtcdPasswordFile string
}

// Environment variables a password may come from, so that it shows
// neither in ps nor in a config file.
const (
	envClusterPassword = "GEOSHARD_CLUSTER_PASSWORD"
	envEtcdPassword    = "GEOSHARD_ETCD_PASSWORD"
)

// clusterDefaults are the values cluster mode runs with when not told
// otherwise; CONFIG GET answers them.
func clusterDefaults() ClusterOptions {
	return ClusterOptions{Name: "geoshard", LeaseTTL: 5 * time.Second, Rebalance: 2 * time.Second, Replicas: 1}
}

// clusterFanout is fanout-timeout's default in cluster mode. A remote
// shard's part of a search crosses the bus: a search of one big shard
// (12,344 hits) through a non-owner took p50 11-13 ms, p90 18-23 ms, max
// 26 ms on the quiet 2-core test machine (3-9 ms on the owner), but up to
// 316 ms when that machine ran other builds at load 20, where searches on
// the owner itself took up to 172 ms (tests/TestClusterRemoteSearch). 50
// ms then answered nothing for the shard; 500 ms covers the worst seen
// with room, and is what a search touching a hung node's shards waits.
const clusterFanout = 500 * time.Millisecond

func init() {
	str := func(name string, field func(o *ClusterOptions) *string) directive {
		return stringDirective(name, func(o *Options) *string { return field(&o.Cluster) })
	}
	secret := func(d directive) directive { d.secret = true; return d }
	directives = append(directives,
		directive{name: "cluster-etcd", multi: true,
			set: func(o *Options, vals []string) error {
				var eps []string
				for _, v := range vals {
					for _, e := range strings.Split(v, ",") {
						if e = strings.TrimSpace(e); e != "" {
							eps = append(eps, e)
						}
					}
				}
				o.Cluster.Etcd = eps
				return nil
			},
			get: func(o *Options) string { return strings.Join(o.Cluster.Etcd, ",") }},
		str("cluster-name", func(o *ClusterOptions) *string { return &o.Name }),
		str("node-id", func(o *ClusterOptions) *string { return &o.NodeID }),
		str("advertise", func(o *ClusterOptions) *string { return &o.Advertise }),
		secret(str("cluster-password", func(o *ClusterOptions) *string { return &o.Password })),
		str("cluster-password-file", func(o *ClusterOptions) *string { return &o.PasswordFile }),
		yesNoDirective("cluster-insecure", func(o *Options) *bool { return &o.Cluster.Insecure }),
		yesNoDirective("tls-cluster", func(o *Options) *bool { return &o.Cluster.TLS }),
		intDirective("cluster-bus-port", 0, 65535, func(o *Options) *int { return &o.Cluster.BusPort }),
		intDirective("cluster-replicas", 0, 1, func(o *Options) *int { return &o.Cluster.Replicas }),
		secondsDirective("cluster-lease-ttl", func(o *Options) *time.Duration { return &o.Cluster.LeaseTTL }),
		secondsDirective("cluster-rebalance-interval", func(o *Options) *time.Duration { return &o.Cluster.Rebalance }),
		str("cluster-etcd-cacert", func(o *ClusterOptions) *string { return &o.EtcdCACert }),
		str("cluster-etcd-cert", func(o *ClusterOptions) *string { return &o.EtcdCert }),
		str("cluster-etcd-key", func(o *ClusterOptions) *string { return &o.EtcdKey }),
		str("cluster-etcd-user", func(o *ClusterOptions) *string { return &o.EtcdUser }),
		secret(str("cluster-etcd-password", func(o *ClusterOptions) *string { return &o.EtcdPassword })),
		str("cluster-etcd-password-file", func(o *ClusterOptions) *string { return &o.EtcdPasswordFile }),
	)
	for i, d := range directives {
		if d.name == "fanout-timeout" {
			set := d.set
			directives[i].set = func(o *Options, vals []string) error {
				o.Cluster.fanoutGiven = true
				return set(o, vals)
			}
		}
	}
}

// prepareCluster checks the options cluster mode needs and fills in what
// comes from elsewhere: passwords from their files or the environment,
// and a snapshot file name of this node's own. A single node is left as
// it is.
func (o *Options) prepareCluster() error {
	c := &o.Cluster
	if len(c.Etcd) == 0 {
		return nil
	}
	switch {
	case o.PositionTTL <= 0:
		// A handoff's delete lost to a dead node is cleaned up only by the
		// position TTL.
		return errors.New("cluster mode needs position-ttl > 0: copies a lost handoff delete leaves behind expire only by it")
	case c.NodeID == "":
		return errors.New("cluster mode needs node-id")
	case c.LeaseTTL < time.Second || c.LeaseTTL%time.Second != 0:
		return errors.New("cluster-lease-ttl must be a whole number of seconds >= 1 (etcd leases are whole seconds)")
	case c.Rebalance <= 0:
		return errors.New("cluster-rebalance-interval must be > 0")
	}
	if c.Advertise != "" {
		if _, _, err := net.SplitHostPort(c.Advertise); err != nil {
			return fmt.Errorf("advertise %q: %w", c.Advertise, err)
		}
	}
	var err error
	if c.Password, err = secretValue(c.Password, "cluster-password-file", c.PasswordFile, envClusterPassword); err != nil {
		return err
	}
	if c.Password == "" && !c.Insecure {
		return errors.New("cluster mode needs a cluster password (cluster-password-file, $" + envClusterPassword +
			" or cluster-password): without one anyone who reaches the bus port can read and write every position;" +
			" for a demo on one machine only, cluster-insecure yes")
	}
	if c.EtcdPassword, err = secretValue(c.EtcdPassword, "cluster-etcd-password-file", c.EtcdPasswordFile, envEtcdPassword); err != nil {
		return err
	}
	if c.EtcdPassword != "" && c.EtcdUser == "" {
		return errors.New("an etcd password needs cluster-etcd-user")
	}
	if c.TLS && (o.TLSCertFile == "" || o.TLSKeyFile == "" || o.TLSCACertFile == "") {
		return errors.New("tls-cluster needs tls-cert-file, tls-key-file and tls-ca-cert-file: nodes show each other their certificates")
	}
	if o.Snapshot.DBFilename == "" {
		// Nodes started in one directory must not share a snapshot.
		o.Snapshot.DBFilename = "dump-" + safeFileWord(c.NodeID) + ".gsnap"
	}
	return nil
}

// secretValue is a password as given directly, else read from a file,
// else from the environment.
func secretValue(direct, fileDirective, file, env string) (string, error) {
	if direct != "" {
		return direct, nil
	}
	if file != "" {
		st, err := os.Stat(file)
		if err != nil {
			return "", fmt.Errorf("%s: %w", fileDirective, err)
		}
		if !st.Mode().IsRegular() || st.Size() > 4096 {
			return "", fmt.Errorf("%s %s: want a regular file of at most 4 KiB", fileDirective, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("%s: %w", fileDirective, err)
		}
		line, _, _ := strings.Cut(string(data), "\n")
		line = strings.TrimRight(line, "\r")
		if line == "" {
			return "", fmt.Errorf("%s %s: the first line is empty", fileDirective, file)
		}
		return line, nil
	}
	return os.Getenv(env), nil
}

// safeFileWord keeps a node id usable in a file name.
func safeFileWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// joinCluster registers this node once it listens, and returns what
// leaves the cluster again; a single node returns a no-op.
func (s *Server) joinCluster() (leave func(), err error) {
	c := s.opts.Cluster
	if len(c.Etcd) == 0 {
		return func() {}, nil
	}
	adv := c.Advertise
	if adv == "" {
		adv = s.Addr().String()
	}
	host, _, err := net.SplitHostPort(adv)
	if err != nil {
		return nil, fmt.Errorf("advertise %q: %w", adv, err)
	}
	cfg := cluster.NodeConfig{
		Endpoints: c.Etcd, Cluster: c.Name, ID: c.NodeID, Advertise: adv,
		Bus:      net.JoinHostPort(host, strconv.Itoa(c.BusPort)),
		Password: c.Password, LeaseTTL: c.LeaseTTL, Rebalance: c.Rebalance, Replicas: c.Replicas, Logger: s.log,
		EtcdUser: c.EtcdUser, EtcdPassword: c.EtcdPassword,
	}
	if err := s.clusterTLS(&cfg); err != nil {
		return nil, err
	}
	for _, f := range []string{c.PasswordFile, c.EtcdPasswordFile} {
		if st, err := os.Stat(f); f != "" && err == nil && st.Mode().Perm()&0o077 != 0 {
			s.log.Warn("a password file is readable by other users; chmod 600 it", "file", f,
				"mode", st.Mode().Perm().String())
		}
	}
	if c.Password == "" {
		s.log.Warn("CLUSTER BUS OPEN: cluster-insecure yes and no cluster password; anyone who reaches the bus port " +
			"can read, write and erase every position. For a demo on one machine only.")
	}
	n, err := cluster.StartNode(s.Router(), cfg)
	if err != nil {
		return nil, err
	}
	if !c.fanoutGiven {
		s.Router().SetFanoutTimeout(clusterFanout)
	}
	s.log.Info("cluster mode", "etcd", strings.Join(c.Etcd, ","), "cluster", c.Name,
		"node", c.NodeID, "advertise", adv, "bus_tls", c.TLS, "etcd_tls", cfg.EtcdTLS != nil,
		"etcd_user", c.EtcdUser != "")
	return n.Close, nil
}
