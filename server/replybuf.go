package server

import (
	"math/bits"
	"sync"
)

// Reply buffers. A client's replies queue in its resp.Writer until they
// are written. Most are a few bytes, but one wide GEOSEARCH or ZRANGE can
// grow the buffer to megabytes, by doubling, each step garbage. Keeping
// such a buffer on the client pins megabytes to a connection that may
// never need them again; dropping it after its write (what the server did
// before) makes every big reply grow a new one from nothing, about twice
// the reply in garbage per reply, which lifts the heap the collector lets
// grow and with it RSS.
//
// So after its write a big buffer goes back to a pool the server's
// connections share, by size class, and a connection whose last reply was
// big takes one of that class before its next command: connections doing
// wide searches at the same moment hold one buffer each, idle ones none,
// and sync.Pool lets the collector free buffers nobody took for two
// cycles.

// bigReply is the capacity from which a reply buffer is pooled rather
// than kept by its connection.
const bigReply = 4 * flushAt

// replyClasses bounds the pooled sizes: class i holds buffers of capacity
// [bigReply<<i, bigReply<<(i+1)); the last also holds everything larger.
const replyClasses = 12

// keptReply is the capacity a connection keeps for its small replies.
const keptReply = 4 << 10

type replyPool struct {
	classes [replyClasses]sync.Pool // of *[]byte
}

// class returns the size class of a buffer of capacity n >= bigReply.
func replyClass(n int) int {
	return min(bits.Len(uint(n/bigReply))-1, replyClasses-1)
}

// get returns an empty pooled buffer of class i, or nil if there is none.
func (p *replyPool) get(i int) []byte {
	b, _ := p.classes[i].Get().(*[]byte)
	if b == nil {
		return nil
	}
	return (*b)[:0]
}

// put gives a big buffer back for the next big reply of any connection.
func (p *replyPool) put(b []byte) {
	if cap(b) < bigReply {
		return
	}
	b = b[:0]
	p.classes[replyClass(cap(b))].Put(&b)
}

// replies is one connection's side of the pool.
type replies struct {
	pool *replyPool
	// want is the class of the connection's last big reply, -1 if its
	// last reply was small: the next command likely answers alike.
	want int
	// small is the buffer small replies go to while no big one is held.
	small []byte
}

func newReplies(p *replyPool) replies { return replies{pool: p, want: -1} }

// prepare gives buf, about to receive a command's reply, a pooled big
// buffer when the connection's last reply was big and buf is empty.
func (r *replies) prepare(buf []byte) []byte {
	if r.want < 0 || len(buf) > 0 || cap(buf) >= bigReply {
		return buf
	}
	if b := r.pool.get(r.want); b != nil {
		r.small = buf
		return b
	}
	return buf
}

// written is told that buf, holding n bytes of replies, was written; it
// returns the buffer to queue the next replies in.
func (r *replies) written(buf []byte, n int) []byte {
	r.want = -1
	if cap(buf) < bigReply {
		return buf[:0]
	}
	if n >= bigReply/2 {
		r.want = replyClass(cap(buf))
	}
	r.pool.put(buf)
	small := r.small
	r.small = nil
	if cap(small) > keptReply {
		small = nil
	}
	return small[:0]
}
