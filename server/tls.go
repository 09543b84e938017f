package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// loadTLS builds the TLS listener's configuration from the tls-*
// directives, as Redis reads them: a certificate and key, a CA that
// client certificates must chain to, and whether clients must show one.
func loadTLS(o Options) (*tls.Config, error) {
	if o.TLSCertFile == "" || o.TLSKeyFile == "" {
		return nil, errors.New("tls-port needs tls-cert-file and tls-key-file")
	}
	cert, err := tls.LoadX509KeyPair(o.TLSCertFile, o.TLSKeyFile)
	if err != nil {
		return nil, fmt.Errorf("tls-cert-file %s / tls-key-file %s: %w", o.TLSCertFile, o.TLSKeyFile, err)
	}
	tc := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	switch o.TLSAuthClients {
	case "no":
		tc.ClientAuth = tls.NoClientCert
	case "optional":
		tc.ClientAuth = tls.VerifyClientCertIfGiven
	default:
		tc.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if o.TLSCACertFile != "" {
		pem, err := os.ReadFile(o.TLSCACertFile)
		if err != nil {
			return nil, fmt.Errorf("tls-ca-cert-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls-ca-cert-file %s: no PEM certificate in it", o.TLSCACertFile)
		}
		tc.ClientCAs = pool
	} else if tc.ClientAuth != tls.NoClientCert {
		return nil, errors.New("tls-auth-clients " + o.TLSAuthClients + " needs tls-ca-cert-file to check client certificates")
	}
	return tc, nil
}
