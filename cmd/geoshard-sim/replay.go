package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	info := infoReader(infoc)
	sum := &summary{}
	if sum.Start, err = info(); err != nil {
		return nil, err
	}
	prog := newProgress(out, cfg, sum.Start)
	start := time.Now()
	nextReport := start.Add(cfg.Progress)
	if len(w.Pings)+len(w.Searches) == 0 {
		return nil, fmt.Errorf("nothing to replay: the files hold no events")
	}
	t0 := firstTime(w)
	pending := 0
	flush := func() error {
		err := pipeline(cmds, pending, sum)
		pending = 0
		return err
	}
	err = plan.EachEvent(w, func(p *plan.Ping, s *plan.Search) error {
		t := p0(p, s)
		if speed > 0 {
			if wait := time.Until(start.Add(time.Duration((t - t0) / speed * float64(time.Second)))); wait > 0 {
				if err := flush(); err != nil {
					return err
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(wait):
				}
			}
		}
		if p != nil {
			cmds.send("GEOADD", cfg.Key, exact(p.Lon), exact(p.Lat), p.ID)
			sum.Pings++
		} else {
			args := []string{"GEOSEARCH", cfg.Key, "FROMLONLAT", exact(s.Lon), exact(s.Lat), "BYRADIUS", exact(s.RadiusM), "m", "ASC"}
			if n := s.Limit(); n > 0 {
				args = append(args, "COUNT", strconv.Itoa(n))
			}
			cmds.send(args...)
			sum.Searches++
		}
		if pending++; pending == replayBatch {
			if err := flush(); err != nil {
				return err
			}
		}
		if now := time.Now(); !now.Before(nextReport) {
			if err := flush(); err != nil {
				return err
			}
			in, err := info()
			if err != nil {
				return err
			}
			prog.line(now.Sub(start), t-t0, sum, in)
			nextReport = now.Add(cfg.Progress)
		}
		return ctx.Err()
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return sum, err
	}
	if sum.End, err = info(); err != nil {
		return sum, err
	}
	prog.finish(sum)
	return sum, nil
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

// dialPair opens the command connection and the INFO connection.
func dialPair(addr string) (*conn, *conn, error) {
	a, err := dial(addr, 5*time.Second)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to %s: %w", addr, err)
	}
	b, err := dial(addr, 5*time.Second)
	if err != nil {
		a.Close()
		return nil, nil, fmt.Errorf("connecting to %s: %w", addr, err)
	}
	return a, b, nil
}

// infoReader returns a function reading INFO shards on c.
func infoReader(c *conn) func() (shardInfo, error) {
	return func() (shardInfo, error) {
		v, err := c.do("INFO", "shards")
		if err != nil {
			return shardInfo{}, fmt.Errorf("INFO shards: %w", err)
		}
		s, ok := v.(string)
		if !ok {
			return shardInfo{}, fmt.Errorf("INFO shards: unexpected reply %v", v)
		}
		return parseInfo(s), nil
	}
}

// borderName turns INFO's border_<a>_<b> key (a_b) into the a|b that the
// planner and /map print, using the shard names INFO lists: a name may
// itself hold underscores.
func borderName(key string, shards map[string]map[string]int64) string {
	for i := strings.Index(key, "_"); i >= 0; {
		if _, ok := shards[key[:i]]; ok {
			if _, ok := shards[key[i+1:]]; ok {
				return key[:i] + "|" + key[i+1:]
			}
		}
		j := strings.Index(key[i+1:], "_")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return key
}
