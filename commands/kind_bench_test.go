package commands

import (
	"testing"
)

// BenchmarkExecKindSingleNode is GET and TYPE through Exec in single-node
// mode, where a key-kind lookup is local: what their prepare step (which
// asks the cluster in cluster mode, kindlookup.go) adds there.
func BenchmarkExecKindSingleNode(b *testing.B) {
	for _, bc := range []struct{ name, cmd, key string }{
		{"GetString", "GET", "str"},
		{"GetMissing", "GET", "missing"},
		{"TypeGeo", "TYPE", "drivers"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newSession(b)
			s.line("SET str v")
			s.line("GEOADD drivers 4.9 52.37 d1")
			argv := [][]byte{[]byte(bc.cmd), []byte(bc.key)}
			b.ReportAllocs()
			cpu := cpuNow()
			b.ResetTimer()
			for b.Loop() {
				s.c.W.Buf = s.c.W.Buf[:0]
				s.e.Exec(s.c, argv)
			}
			b.ReportMetric(float64(cpuNow()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
