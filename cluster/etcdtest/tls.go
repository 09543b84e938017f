package etcdtest

import (
	"net/url"
	"testing"

	"go.etcd.io/etcd/client/pkg/v3/transport"
)

// StartTLS starts an etcd server whose client port speaks TLS with the
// certificate certFile/keyFile and, when caFile is set, accepts only
// clients that show a certificate signed by it. Endpoint is its https://
// URL.
func StartTLS(t testing.TB, certFile, keyFile, caFile string) *Server {
	t.Helper()
	return startFresh(t, func() *Server {
		s := &Server{t: t, dir: t.TempDir(), tls: &transport.TLSInfo{CertFile: certFile, KeyFile: keyFile,
			TrustedCAFile: caFile, ClientCertAuth: caFile != ""}}
		s.client = url.URL{Scheme: "https", Host: freeAddr(t)}
		s.peer = url.URL{Scheme: "http", Host: freeAddr(t)}
		s.Endpoint = s.client.String()
		return s
	})
}
