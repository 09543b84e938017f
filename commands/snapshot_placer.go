package commands

import (
	"geoshard/router"
)

// placerPart is how many members the decoder hands the placer at once:
// large enough that the hand-over costs nothing per member, small
// enough that the placer starts early and the parts in flight stay a
// few hundred KB.
const placerPart = 1 << 14

// placerDepth bounds the parts decoded but not yet prepared.
const placerDepth = 4

// placer prepares a geo key's members on its own goroutine while the
// snapshot goes on being decoded: decoding is one stream, and without it
// the second core would idle until the whole key is read.
type placer struct {
	kr   *router.KeyRestore
	part []router.Saved
	full chan []router.Saved // parts to prepare, in order
	free chan []router.Saved // prepared parts, for reuse
	done chan struct{}
}

func startPlacer(kr *router.KeyRestore) *placer {
	p := &placer{
		kr:   kr,
		full: make(chan []router.Saved, placerDepth),
		free: make(chan []router.Saved, placerDepth+2),
		done: make(chan struct{}),
	}
	go func() {
		defer close(p.done)
		for part := range p.full {
			kr.Add(part)
			select {
			case p.free <- part[:0]:
			default:
			}
		}
	}()
	return p
}

// add takes the next member in saved order.
func (p *placer) add(m router.Saved) {
	if p.part == nil {
		select {
		case p.part = <-p.free:
		default:
			p.part = make([]router.Saved, 0, placerPart)
		}
	}
	p.part = append(p.part, m)
	if len(p.part) == placerPart {
		p.full <- p.part
		p.part = nil
	}
}

// finish hands over the last part, waits for the placer and places the
// key whole.
func (p *placer) finish() {
	if len(p.part) > 0 {
		p.full <- p.part
	}
	close(p.full)
	<-p.done
	p.kr.Finish()
}
