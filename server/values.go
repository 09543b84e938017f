package server

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The parsers and writers of directive values, as redis.conf spells them.

func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("want an integer from %d to %d", lo, hi)
	}
	return n, nil
}

func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	// NaN passes no comparison, and a positive value under a millisecond
	// would become 0, which means "never": both are refused.
	if err != nil || !(f == 0 || (f >= 0.001 && f <= 1e9)) {
		return 0, fmt.Errorf("want 0 or 0.001 to 1000000000 seconds")
	}
	return time.Duration(f * float64(time.Second)), nil
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

func parseYesNo(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes":
		return true, nil
	case "no":
		return false, nil
	}
	return false, fmt.Errorf("want yes or no")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func parseBulkLen(v string) (int64, error) {
	n, err := ParseMemory(v)
	if err == nil && n < 1<<20 {
		err = fmt.Errorf("must be at least 1mb")
	}
	return n, err
}

// parseOutputLimit reads "class hard soft seconds" groups. Only the normal
// class applies here; replica and pubsub groups are accepted, as Redis
// config files carry them, and ignored.
func parseOutputLimit(cur OutputLimit, vals []string) (OutputLimit, error) {
	if len(vals) == 0 || len(vals)%4 != 0 {
		return cur, fmt.Errorf("want groups of: class hard-limit soft-limit soft-seconds")
	}
	for i := 0; i < len(vals); i += 4 {
		class := strings.ToLower(vals[i])
		if class != "normal" && class != "replica" && class != "slave" && class != "pubsub" {
			return cur, fmt.Errorf("unknown client class %q", vals[i])
		}
		hard, err1 := ParseMemory(vals[i+1])
		soft, err2 := ParseMemory(vals[i+2])
		secs, err3 := strconv.ParseInt(vals[i+3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || secs < 0 || secs > 1e9 {
			return cur, fmt.Errorf("want sizes and a whole number of seconds")
		}
		if class == "normal" {
			cur = OutputLimit{Hard: hard, Soft: soft, SoftTime: time.Duration(secs) * time.Second}
		}
	}
	return cur, nil
}

// ParseMemory reads a size as redis.conf writes it: 1024, 1k, 1kb, 5mb, 1gb.
func ParseMemory(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}}
	ls := strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(ls, u.suffix) {
			ls, mul = strings.TrimSuffix(ls, u.suffix), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mul {
		return 0, fmt.Errorf("want a size such as 512mb")
	}
	return n * mul, nil
}
