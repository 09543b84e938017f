package commands

import (
	"hash/fnv"
	"sort"
	"strconv"

	"geoshard/geo"
)

func init() {
	register(&command{name: "scan", arity: -2, flags: []string{"readonly"}, handler: scan})
}

// scanHash places a key in SCAN's order. Ordering by a hash of the name
// (never 0, which is the cursor that starts and ends a scan) keeps the
// cursor meaningful while keys come and go: every key present for the
// whole scan is returned, as Redis promises.
func scanHash(k string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(k))
	return max(h.Sum64(), 1)
}

// parseCursor reads a SCAN cursor as Redis does with strtoul: a sign is
// allowed ("-1" wraps around), leading space, trailing bytes and overflow
// are not, and an empty cursor is 0.
func parseCursor(b []byte) (uint64, bool) {
	b = cstr(b)
	if len(b) == 0 {
		return 0, true
	}
	neg := false
	switch b[0] {
	case '+', '-':
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil || b[0] == '+' || b[0] == '-' {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// scan: SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
func scan(e *Engine, c *Client, args [][]byte) {
	cursor, ok := parseCursor(args[1])
	if !ok {
		c.W.Error("ERR invalid cursor")
		return
	}
	count, pattern, typeName, msg := parseScanOptions(args[2:])
	if msg != "" {
		c.W.Error(msg)
		return
	}
	live, err := e.liveKeys(c)
	if tryAgain(c, err) {
		return
	}
	step, next := scanStep(live, cursor, count)
	// As in Redis, MATCH and TYPE filter what the step visited, so a page
	// may come back empty with a cursor that is not 0.
	var out []string
	d := e.dbs[c.db]
	for _, name := range step {
		if pattern != nil && !globMatch(string(pattern), name) {
			continue
		}
		// A live name that is not a string was listed by the nodes as a
		// geo key: asking each name's kind again would ask every node
		// once a name, under the lock.
		k := kindZset
		if _, ok := d.strings[name]; ok {
			k = kindString
		}
		if typeName != nil && !eq(typeName, k.String()) {
			continue
		}
		out = append(out, name)
	}
	c.W.Array(2)
	c.W.BulkString(strconv.FormatUint(next, 10))
	c.W.Array(len(out))
	for _, k := range out {
		c.W.BulkString(k)
	}
}

// parseScanOptions reads SCAN's option pairs; msg is the error to reply,
// or "".
func parseScanOptions(opts [][]byte) (count int64, pattern, typeName []byte, msg string) {
	count = 10
	for i := 0; i < len(opts); i += 2 {
		if i+1 >= len(opts) {
			return 0, nil, nil, errSyntax
		}
		switch a := opts[i]; {
		case optIs(a, "count"):
			var ok bool
			if count, ok = geo.ParseInt(opts[i+1]); !ok {
				return 0, nil, nil, errNotInt
			}
			if count < 1 {
				return 0, nil, nil, errSyntax
			}
		case optIs(a, "match"):
			pattern = opts[i+1]
		case optIs(a, "type"):
			typeName = cstr(opts[i+1])
		default:
			return 0, nil, nil, errSyntax
		}
	}
	return count, pattern, typeName, ""
}

// scanStep picks the keys one SCAN call visits from cursor on, in hash
// order, and the cursor that follows them (0 at the end).
func scanStep(keys []string, cursor uint64, count int64) (step []string, next uint64) {
	type entry struct {
		hash uint64
		name string
	}
	var order []entry
	for _, k := range keys {
		if h := scanHash(k); h >= cursor {
			order = append(order, entry{h, k})
		}
	}
	sort.Slice(order, func(i, j int) bool {
		if order[i].hash != order[j].hash {
			return order[i].hash < order[j].hash
		}
		return order[i].name < order[j].name
	})
	// Take count keys, then the rest of a run of equal hashes, so that the
	// next cursor never splits one.
	n := min(int(count), len(order))
	for n > 0 && n < len(order) && order[n].hash == order[n-1].hash {
		n++
	}
	if n < len(order) {
		next = order[n].hash
	}
	step = make([]string, n)
	for i, en := range order[:n] {
		step[i] = en.name
	}
	return step, next
}
