package server

import (
	"context"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"time"
)

// GCFloor is the least the heap may grow between collections at the
// gc-percent ceiling, whatever gc-percent says. A low percent is what
// keeps a big index's RSS near its live size, but applied to a small
// heap (a few thousand drivers, a few MB live) it would collect after
// every few hundred KB of replies, and a mixed command stream then ran
// at half its rate with gc-percent 20 against 100. The floor makes a
// small server collect as Go's default does while a million drivers
// still get the low percent.
const GCFloor = 32 << 20

// gcInterval is the shortest mean time between collections that PaceGC
// shrinks the heap's growth room for: room for gcInterval of the recent
// allocation rate, never less than gc-min-percent and never more than
// gc-percent allows. A collection's cost hardly depends on the index
// (nothing per driver holds a pointer), so the collector's CPU is about
// collections a second times a fixed cost: at most 2 a second from the
// shrinking, and under a search load that allocates faster than the
// ceiling's room per half second, the ceiling's pace, as before.
const gcInterval = 500 * time.Millisecond

// gcRateHalfLife is how fast the remembered allocation rate decays once
// allocation slows: a rise is taken at once (a burst of wide searches
// must not collect at the floor's pace for long), a fall over a few
// seconds: a search load's 100 MB/s or more takes 5 to 7 s to fall under
// the 4-6 MB/s that fill the floor's room in gcInterval at 1M drivers.
const gcRateHalfLife = time.Second

// gcIdleAfter is how long a quiet server goes without a collection before
// PaceGC runs one itself. A server that stops allocating never reaches
// its next goal, so the garbage of its last burst (and the searches that
// were in flight when the last collection marked them live) would stay
// resident until Go's forced collection two minutes later: 307 B a driver
// ten seconds after 5 km searches stopped, against 128 B before them.
const gcIdleAfter = 2 * time.Second

// gcIdleCollections is how many collections a quiet spell gets: the
// second frees what the first found only in sync.Pool's victim caches
// (the searches' hit slices).
const gcIdleCollections = 2

// gcMinRoom is the least room gcRoom grants whatever gc-min-percent says:
// a small heap would otherwise collect every few hundred KB in the tick
// between a burst's start and PaceGC's next read.
const gcMinRoom = 2 << 20

// gcTick is how often PaceGC reads the runtime's figures: a read costs
// microseconds, and it bounds how long a sudden burst of allocation runs
// with the small room of a quiet moment.
const gcTick = 100 * time.Millisecond

// GCPace is what PaceGC works from: the options' gc-percent (the
// ceiling) and gc-min-percent (the floor of the room it grants).
type GCPace struct {
	Percent, MinPercent int
	// TrimLimit sets, while the server is quiet, a soft memory limit
	// just above the collection goal and the runtime's own memory, so
	// the scavenger hands back free pages down to the goal rather than
	// keeping 10 % over it, and at once after a transient peak.
	TrimLimit bool
}

// PaceGC sets the collector's GOGC and, with TrimLimit, its soft memory
// limit from the live heap and the recent allocation rate until ctx
// ends: a server that only moves drivers allocates little and keeps its
// heap within a few percent of its live data, one that answers wide
// searches at a high rate gets the ceiling's room. See gcRoom.
func PaceGC(ctx context.Context, pace GCPace) {
	p := newGCPacer(pace)
	tick := time.NewTicker(gcTick)
	defer tick.Stop()
	for {
		p.step(time.Now())
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// gcPacer holds what PaceGC remembers between reads.
type gcPacer struct {
	pace      GCPace
	samples   []rtmetrics.Sample
	allocs    uint64    // bytes allocated so far at the last read
	at        time.Time // time of the last read
	rate      float64   // remembered allocation rate, bytes a second
	setGOGC   int
	setLimit  int64
	userLimit bool      // GOMEMLIMIT was given: the operator's limit stands
	cycles    uint64    // collections so far at the last read
	cycleAt   time.Time // when PaceGC last saw that number change
	idleLeft  int       // collections a quiet spell may still run
}

// The runtime/metrics read by gcPacer.step, in this order.
var gcPaceMetrics = []string{
	"/gc/heap/live:bytes",
	"/gc/heap/allocs:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/gc/cycles/total:gc-cycles",
}

func newGCPacer(pace GCPace) *gcPacer {
	p := &gcPacer{pace: pace, setGOGC: -1, setLimit: -1}
	p.samples = make([]rtmetrics.Sample, len(gcPaceMetrics))
	for i, name := range gcPaceMetrics {
		p.samples[i].Name = name
	}
	_, p.userLimit = os.LookupEnv("GOMEMLIMIT")
	return p
}

func (p *gcPacer) value(i int) uint64 {
	if p.samples[i].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return p.samples[i].Value.Uint64()
}

// step reads the runtime's figures and sets GOGC and the memory limit
// where they changed.
func (p *gcPacer) step(now time.Time) {
	rtmetrics.Read(p.samples)
	live, allocs := p.value(0), p.value(1)
	if !p.at.IsZero() {
		p.rate = decayRate(p.rate, allocs-p.allocs, now.Sub(p.at))
	}
	p.allocs, p.at = allocs, now
	gogc := gcRoom(p.pace.Percent, p.pace.MinPercent, live, p.rate)
	if gogc != p.setGOGC {
		debug.SetGCPercent(gogc)
		p.setGOGC = gogc
	}
	// Quiet: the room is the floor's, the recent rate would not even
	// fill that in gcInterval (moving drivers, an idle server), and the
	// pacing is on at all.
	floor := gcRoom(p.pace.Percent, p.pace.MinPercent, live, 0)
	quiet := live > 0 && gogc <= floor && floor < gcPercent(p.pace.Percent, live)
	p.collectIfIdle(now, quiet)
	if !p.pace.TrimLimit || p.userLimit || live == 0 {
		return
	}
	// Only while quiet: under a search load the live heap itself swings
	// with the searches in flight (50 wide searches hold 100 MB of hits
	// and replies), and a limit drawn from the last collection's live
	// heap made the collector run back to back: 1.22x the CPU per 5 km
	// search, side by side, when set at all times, and 1.27x when set
	// whenever the room was below the ceiling (wide searches' allocation
	// rate dips mid-burst).
	limit := int64(math.MaxInt64)
	if quiet {
		heap := p.value(3) + p.value(4) + p.value(5) + p.value(6)
		runtimeOwn := p.value(2) - min(heap, p.value(2))
		limit = trimLimit(live, gogc, runtimeOwn)
	}
	// Setting the limit is cheap but not free (it takes the heap lock):
	// only when it moved by more than 1 %.
	if p.setLimit < 0 || math.Abs(float64(limit-p.setLimit)) > float64(p.setLimit)/100 {
		debug.SetMemoryLimit(limit)
		p.setLimit = limit
	}
}

// collectIfIdle runs a collection when the server has been quiet and
// without one for gcIdleAfter, up to gcIdleCollections times a quiet
// spell: a few milliseconds of CPU for a heap that holds no pointer per
// driver, and the pacing and the scavenger can only shrink to what a
// collection found live.
func (p *gcPacer) collectIfIdle(now time.Time, quiet bool) {
	if c := p.value(7); c != p.cycles || p.cycleAt.IsZero() {
		p.cycles, p.cycleAt = c, now
	}
	if !quiet {
		p.idleLeft = gcIdleCollections
		return
	}
	if p.idleLeft == 0 || now.Sub(p.cycleAt) < gcIdleAfter {
		return
	}
	runtime.GC()
	p.idleLeft--
	p.cycleAt = now
}

// decayRate is the remembered allocation rate after bytes were allocated
// over elapsed: the new rate if higher, else the old one decayed by
// gcRateHalfLife, but not below the new one.
func decayRate(old float64, bytes uint64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return old
	}
	now := float64(bytes) / elapsed.Seconds()
	decayed := old * math.Exp2(-elapsed.Seconds()/gcRateHalfLife.Seconds())
	return max(now, decayed)
}

// gcRoom is the GOGC that gives a heap of live bytes room for
// gcInterval of allocation at rate bytes a second, between minPercent
// (or gcMinRoom, whichever is more) and the ceiling gcPercent(percent,
// live).
func gcRoom(percent, minPercent int, live uint64, rate float64) int {
	ceiling := gcPercent(percent, live)
	if live == 0 || minPercent >= min(percent, ceiling) {
		return ceiling // gc-min-percent at gc-percent: no pacing, as before it
	}
	room := max(rate*gcInterval.Seconds(), gcMinRoom)
	want := int(math.Ceil(room * 100 / float64(live)))
	return min(max(want, minPercent), ceiling)
}

// gcPercent is the GOGC that lets a heap of live bytes grow by percent,
// or by GCFloor if that is more, but never past Go's default unless
// percent itself is higher.
func gcPercent(percent int, live uint64) int {
	if percent >= 100 {
		return percent
	}
	if live == 0 {
		return 100
	}
	floor := int(min(uint64(GCFloor)*100/live, 100))
	return max(percent, floor)
}

// trimLimit is the soft memory limit for a heap of live bytes collected
// at gogc, with runtimeOwn bytes of the runtime's own (stacks, the
// collector's metadata): the scavenger keeps what is mapped under 95 % of
// the limit, so 1/0.95 of the goal plus the runtime's memory leaves it
// the goal, and the collector, which starts before the goal, never needs
// the limit to start a cycle while the live heap stays what it was.
// Plus 4 MB, so that a small heap is not trimmed page by page.
func trimLimit(live uint64, gogc int, runtimeOwn uint64) int64 {
	goal := float64(live) * (1 + float64(gogc)/100)
	return int64((goal+float64(runtimeOwn))/0.95) + 4<<20
}
