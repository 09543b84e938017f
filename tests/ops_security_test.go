package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const deniedReply = "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

// TestOpsAuth: without AUTH, or with a wrong password, nothing but AUTH
// and friends runs; the right password opens the connection, also for
// go-redis.
func TestOpsAuth(t *testing.T) {
	p := startOps(t, "geoshard-auth", nil) // the harness's PING must get in first
	if got := string(dialRaw(t, p).mustDo(t, "CONFIG", "SET", "requirepass", "s3cret")); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q", got)
	}
	rc := dialRaw(t, p)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"GEOADD", "k", "13.4", "52.5", "a"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"PING"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"AUTH", "wrong"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"AUTH", "nobody", "s3cret"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"HELLO", "3", "AUTH", "default", "wrong"}, "-WRONGPASS invalid username-password pair or user is disabled.\r\n"},
		{[]string{"GEOSEARCH", "k", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"}, "-NOAUTH Authentication required.\r\n"},
		{[]string{"AUTH", "s3cret"}, "+OK\r\n"},
		{[]string{"GEOADD", "k", "13.4", "52.5", "a"}, ":1\r\n"},
	}
	for _, s := range steps {
		if got := string(rc.mustDo(t, s.args...)); got != s.want {
			t.Errorf("%s: got %q, want %q", quoteCommand(s.args), got, s.want)
		}
	}
	ctx := context.Background()
	bad := redis.NewClient(&redis.Options{Addr: p.addr, Password: "nope", MaxRetries: -1})
	defer bad.Close()
	if err := bad.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Errorf("go-redis with a wrong password: PING gave %v, want WRONGPASS", err)
	}
	good := redis.NewClient(&redis.Options{Addr: p.addr, Password: "s3cret"})
	defer good.Close()
	if n, err := good.GeoAdd(ctx, "k", &redis.GeoLocation{Name: "b", Longitude: 13.41, Latitude: 52.51}).Result(); err != nil || n != 1 {
		t.Errorf("go-redis with the password: GEOADD = %d, %v", n, err)
	}
}

// TestOpsProtectedMode: with no password, a client from anywhere but
// 127.0.0.1 or ::1 gets Redis's DENIED text and the connection closes;
// 127.0.0.2 is such an address for Redis 7.0, and is on loopback here,
// so nothing leaves the machine. The text is checked against redis-server.
func TestOpsProtectedMode(t *testing.T) {
	p := startOps(t, "geoshard-protected", nil)
	ref := startRedis(t)
	for _, srv := range []*serverProc{ref, p} {
		rc := dialFrom(t, "127.0.0.2", srv.addr)
		if err := rc.send([][]string{{"PING"}}); err != nil {
			t.Fatal(err)
		}
		got, _ := rc.readToEOF(5 * time.Second)
		if string(got) != deniedReply {
			t.Errorf("%s, client at 127.0.0.2: got %q, want the DENIED text", srv.name, got)
		}
	}
	local := dialFrom(t, "127.0.0.1", p.addr)
	if got := string(local.mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Fatalf("client at 127.0.0.1: PING gave %q", got)
	}
	// A password lifts protected mode, and so does turning it off.
	local.mustDo(t, "CONFIG", "SET", "requirepass", "pw")
	if got := string(dialFrom(t, "127.0.0.2", p.addr).mustDo(t, "PING")); got != "-NOAUTH Authentication required.\r\n" {
		t.Errorf("127.0.0.2 with a password set: PING gave %q, want NOAUTH", got)
	}
	local.mustDo(t, "CONFIG", "SET", "requirepass", "")
	local.mustDo(t, "CONFIG", "SET", "protected-mode", "no")
	if got := string(dialFrom(t, "127.0.0.2", p.addr).mustDo(t, "PING")); got != "+PONG\r\n" {
		t.Errorf("127.0.0.2 with protected mode off: PING gave %q", got)
	}
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, written as PEM files.
type testPKI struct {
	dir                       string
	caFile, certFile, keyFile string
	pool                      *x509.CertPool
	client                    tls.Certificate
	strangerClient            tls.Certificate // signed by another CA
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	ca, caKey := makeCert(t, nil, nil, "test CA", true, x509.ExtKeyUsageAny)
	srv, srvKey := makeCert(t, ca, caKey, "127.0.0.1", false, x509.ExtKeyUsageServerAuth)
	cli, cliKey := makeCert(t, ca, caKey, "client", false, x509.ExtKeyUsageClientAuth)
	other, otherKey := makeCert(t, nil, nil, "other CA", true, x509.ExtKeyUsageAny)
	stranger, strangerKey := makeCert(t, other, otherKey, "stranger", false, x509.ExtKeyUsageClientAuth)
	pk := &testPKI{dir: dir, caFile: filepath.Join(dir, "ca.crt"), certFile: filepath.Join(dir, "server.crt"),
		keyFile: filepath.Join(dir, "server.key"), pool: x509.NewCertPool()}
	pk.pool.AddCert(ca)
	writePEM(t, pk.caFile, "CERTIFICATE", ca.Raw)
	writePEM(t, pk.certFile, "CERTIFICATE", srv.Raw)
	der, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, pk.keyFile, "PRIVATE KEY", der)
	pk.client = tls.Certificate{Certificate: [][]byte{cli.Raw}, PrivateKey: cliKey}
	pk.strangerClient = tls.Certificate{Certificate: [][]byte{stranger.Raw}, PrivateKey: strangerKey}
	return pk
}

func makeCert(t *testing.T, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, cn string, isCA bool, usage x509.ExtKeyUsage) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
	}
	if isCA {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	}
	if ip := net.ParseIP(cn); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestOpsTLS: go-redis talks to the TLS port with a client certificate;
// without one, or with one from another CA, it is refused when
// tls-auth-clients is yes, and let in without one when it is optional.
func TestOpsTLS(t *testing.T) {
	pk := newTestPKI(t)
	for _, mode := range []string{"yes", "optional"} {
		t.Run(mode, func(t *testing.T) {
			var tlsAddr string
			p := startOps(t, "geoshard-tls-"+mode, func(t *testing.T) []string {
				port := mustFreePort(t)
				tlsAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
				return []string{"--tls-port", strconv.Itoa(port), "--tls-cert-file", pk.certFile,
					"--tls-key-file", pk.keyFile, "--tls-ca-cert-file", pk.caFile, "--tls-auth-clients", mode}
			})
			try := func(cert *tls.Certificate) error {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c := redis.NewClient(&redis.Options{Addr: tlsAddr, MaxRetries: -1, TLSConfig: &tls.Config{
					RootCAs: pk.pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12,
					// Send the certificate even if the server's CA list
					// does not name its issuer (Go would send none).
					GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
						if cert == nil {
							return &tls.Certificate{}, nil
						}
						return cert, nil
					}}})
				defer c.Close()
				if err := c.GeoAdd(ctx, "k", &redis.GeoLocation{Name: "a", Longitude: 2.35, Latitude: 48.85}).Err(); err != nil {
					return err
				}
				return c.GeoSearch(ctx, "k", &redis.GeoSearchQuery{Longitude: 2.35, Latitude: 48.85, Radius: 1, RadiusUnit: "km"}).Err()
			}
			if err := try(&pk.client); err != nil {
				t.Errorf("with a client certificate: %v", err)
			}
			if err := try(&pk.strangerClient); err == nil {
				t.Errorf("a certificate from another CA was accepted")
			}
			err := try(nil)
			if mode == "yes" && err == nil {
				t.Errorf("tls-auth-clients yes let a client without a certificate in")
			}
			if mode == "optional" && err != nil {
				t.Errorf("tls-auth-clients optional refused a client without a certificate: %v", err)
			}
			// The plain port keeps working.
			if got := string(dialRaw(t, p).mustDo(t, "PING")); got != "+PONG\r\n" {
				t.Errorf("plain port: PING gave %q", got)
			}
		})
	}
}
