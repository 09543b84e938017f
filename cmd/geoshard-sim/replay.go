package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"geoshard/plan"
)

// replayBatch is how many commands go out in one pipeline: enough to
// keep the server busy, few enough that pacing stays close to the
// recorded times.
const replayBatch = 500

// replay sends a recorded workload to the server on one connection, in
// the order plan.Replay plays it (by time, pings before searches at the
// same instant), with the recorded coordinates unrounded, so the
// server's counters and the planner's figures for the same file can be
// compared. speed is recorded seconds per real second; 0 sends as fast
// as the server answers.
func replay(ctx context.Context, cfg config, w *plan.Workload, speed float64, out io.Writer) (*summary, error) {
	addr, err := loopbackAddr(cfg.Addr)
	if err != nil {
		return nil, err
	}
	cmds, infoc, err := dialPair(addr)
	if err != nil {
		return nil, err
	}
	defer cmds.Close()
	defer infoc.Close()
	r := &replayer{key: cfg.Key, cmds: cmds, info: infoReader(infoc), sum: &summary{},
		speed: speed, every: cfg.Progress}
	sum := r.sum
	if sum.Start, err = r.info(); err != nil {
		return nil, err
	}
	r.prog = newProgress(out, cfg, sum.Start)
	r.start = time.Now()
	r.nextReport = r.start.Add(cfg.Progress)
	if len(w.Pings)+len(w.Searches) == 0 {
		return nil, fmt.Errorf("nothing to replay: the files hold no events")
	}
	r.t0 = firstTime(w)
	err = plan.EachEvent(w, func(p *plan.Ping, s *plan.Search) error { return r.event(ctx, p, s) })
	if err == nil {
		err = r.flush()
	}
	if err != nil {
		return sum, err
	}
	if sum.End, err = r.info(); err != nil {
		return sum, err
	}
	r.prog.finish(sum)
	return sum, nil
}

// replayer is one replay under way: the commands buffered but not yet
// sent, the pacing clock and the progress line.
type replayer struct {
	key        string
	cmds       *conn
	info       func() (shardInfo, error)
	sum        *summary
	prog       *progress
	speed      float64   // recorded seconds per real second; 0: unpaced
	start      time.Time // real time of the first event
	t0         float64   // recorded time of the first event
	pending    int       // commands sent since the last flush
	every      time.Duration
	nextReport time.Time
}

// event sends one recorded ping or search once it is due, and flushes
// and reports as the batch size and progress interval ask.
func (r *replayer) event(ctx context.Context, p *plan.Ping, s *plan.Search) error {
	t := p0(p, s)
	if err := r.pace(ctx, t); err != nil {
		return err
	}
	if p != nil {
		r.cmds.send("GEOADD", r.key, exact(p.Lon), exact(p.Lat), p.ID)
		r.sum.Pings++
	} else {
		args := []string{"GEOSEARCH", r.key, "FROMLONLAT", exact(s.Lon), exact(s.Lat), "BYRADIUS", exact(s.RadiusM), "m", "ASC"}
		if n := s.Limit(); n > 0 {
			args = append(args, "COUNT", strconv.Itoa(n))
		}
		r.cmds.send(args...)
		r.sum.Searches++
	}
	if r.pending++; r.pending == replayBatch {
		if err := r.flush(); err != nil {
			return err
		}
	}
	if now := time.Now(); !now.Before(r.nextReport) {
		if err := r.flush(); err != nil {
			return err
		}
		in, err := r.info()
		if err != nil {
			return err
		}
		r.prog.line(now.Sub(r.start), t-r.t0, r.sum, in)
		r.nextReport = now.Add(r.every)
	}
	return ctx.Err()
}

// pace waits until recorded time t is due at the replay's speed, sending
// what is buffered first so the server gets it on time.
func (r *replayer) pace(ctx context.Context, t float64) error {
	if r.speed <= 0 {
		return nil
	}
	wait := time.Until(r.start.Add(time.Duration((t - r.t0) / r.speed * float64(time.Second))))
	if wait <= 0 {
		return nil
	}
	if err := r.flush(); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
	}
	return nil
}

// flush sends the buffered commands and reads their replies.
func (r *replayer) flush() error {
	err := pipeline(r.cmds, r.pending, r.sum)
	r.pending = 0
	return err
}

func p0(p *plan.Ping, s *plan.Search) float64 {
	if p != nil {
		return p.T
	}
	return s.T
}

// firstTime is the time of the first event of a sorted workload.
func firstTime(w *plan.Workload) float64 {
	switch {
	case len(w.Pings) == 0:
		return w.Searches[0].T
	case len(w.Searches) == 0:
		return w.Pings[0].T
	}
	return min(w.Pings[0].T, w.Searches[0].T)
}

// exact writes a coordinate as the shortest decimal that reads back to
// the same float, so the server stores what the planner replays.
func exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
