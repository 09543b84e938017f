package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"geoshard/cluster"
)

// clusterTLS fills in the TLS of the node-to-node bus and of etcd.
//
// The bus (tls-cluster yes) is mutual: a node shows its tls-cert-file to
// the peers it calls and to those that call it, and each side checks the
// other's against tls-ca-cert-file, as Redis's tls-cluster does. So the
// certificate must be good for both server and client authentication and
// name the node's advertised host.
//
// etcd gets TLS when cluster-etcd-cacert or a client certificate is set,
// or an endpoint is an https:// URL.
func (s *Server) clusterTLS(cfg *cluster.NodeConfig) error {
	o, c := s.opts, s.opts.Cluster
	if c.TLS {
		cert, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSKeyFile)
		if err != nil {
			return fmt.Errorf("tls-cluster: tls-cert-file %s / tls-key-file %s: %w", o.TLSCertFile, o.TLSKeyFile, err)
		}
		pool, err := loadCAPool("tls-ca-cert-file", o.TLSCACertFile)
		if err != nil {
			return err
		}
		cfg.BusTLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
		cfg.PeerTLS = &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool,
			MinVersion: tls.VersionTLS12}
	}
	https := false
	for _, e := range c.Etcd {
		https = https || strings.HasPrefix(e, "https://")
	}
	if c.EtcdCACert == "" && c.EtcdCert == "" && !https {
		return nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.EtcdCACert != "" {
		pool, err := loadCAPool("cluster-etcd-cacert", c.EtcdCACert)
		if err != nil {
			return err
		}
		tc.RootCAs = pool
	}
	switch {
	case c.EtcdCert != "" && c.EtcdKey != "":
		cert, err := tls.LoadX509KeyPair(c.EtcdCert, c.EtcdKey)
		if err != nil {
			return fmt.Errorf("cluster-etcd-cert %s / cluster-etcd-key %s: %w", c.EtcdCert, c.EtcdKey, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	case c.EtcdCert != "" || c.EtcdKey != "":
		return errors.New("cluster-etcd-cert and cluster-etcd-key go together")
	}
	cfg.EtcdTLS = tc
	return nil
}

func loadCAPool(directive, file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", directive, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in it", directive, file)
	}
	return pool, nil
}
