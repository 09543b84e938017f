package resp

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
)

// loopReader serves the same bytes for ever, as a client repeating one
// command would.
type loopReader struct {
	data []byte
	off  int
}

func (l *loopReader) Read(p []byte) (int, error) {
	n := copy(p, l.data[l.off:])
	l.off = (l.off + n) % len(l.data)
	return n, nil
}

var _ io.Reader = (*loopReader)(nil)

// BenchmarkReadCommand reads a GEOADD of one member (a ping) and one of
// 100 members (a bulk load's command): allocations per command are the
// figure to watch.
func BenchmarkReadCommand(b *testing.B) {
	for _, members := range []int{1, 100} {
		b.Run(fmt.Sprintf("geoadd-%d", members), func(b *testing.B) {
			var cmd bytes.Buffer
			fmt.Fprintf(&cmd, "*%d\r\n$6\r\nGEOADD\r\n$7\r\ndrivers\r\n", 2+3*members)
			for i := range members {
				name := "driver:" + strconv.Itoa(100000+i)
				fmt.Fprintf(&cmd, "$9\r\n4.8952000\r\n$9\r\n52.370200\r\n$%d\r\n%s\r\n", len(name), name)
			}
			r := NewReader(&loopReader{data: cmd.Bytes()})
			b.ReportAllocs()
			for b.Loop() {
				args, err := r.ReadCommand()
				if err != nil || len(args) != 2+3*members {
					b.Fatalf("%d words, %v", len(args), err)
				}
			}
		})
	}
}
