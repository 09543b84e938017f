package commands

import (
	"math"

	"geoshard/geo"
)

func init() {
	register(
		// SET is exclusive: it changes the string map and the expires map,
		// and replaces a sorted set of the same name.
		&command{name: "set", arity: -3, flags: []string{"write", "denyoom"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: set, exclusive: true, prepare: kindOfFirst, clusterOnly: true},
		&command{name: "get", arity: 2, flags: []string{"readonly", "fast"}, firstKey: 1, lastKey: 1, keyStep: 1, handler: get, prepare: kindOfFirst, clusterOnly: true},
	)
}

// SET's options, as Redis's parseExtendedStringArgumentsOrReply names them.
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setEX
	setPX
	setEXAT
	setPXAT
)

// set: SET key value [NX|XX] [GET] [EX s|PX ms|EXAT t|PXAT t|KEEPTTL]
func set(e *Engine, c *Client, args [][]byte) {
	flags, expire, msg := parseSetOptions(args[3:])
	if msg != "" {
		c.W.Error(msg)
		return
	}
	var at int64
	if expire != nil {
		if at, msg = setExpireAt(expire, flags); msg != "" {
			c.W.Error(msg)
			return
		}
	}
	key := string(args[1])
	// In cluster mode a name no node that answered holds as a geo key may
	// be one on a node that did not answer: storing the string then would
	// make the key both.
	k, err := e.tryKindOf(c, args[1])
	if tryAgain(c, err) {
		return
	}
	if flags&setGet != 0 {
		switch k {
		case kindZset:
			c.W.Error(errWrongType)
			return
		case kindString:
			c.W.Bulk(e.dbs[c.db].strings[key])
		default:
			c.W.Null()
		}
	}
	found := k != none
	if (flags&setNX != 0 && found) || (flags&setXX != 0 && !found) {
		if flags&setGet == 0 {
			c.W.Null()
		}
		return
	}
	d := e.dbs[c.db]
	if k == kindZset {
		// In cluster mode a drop refused or not reaching every node
		// leaves the members: storing the string too would make the key
		// both (expire_cycle.go).
		if _, err := e.dropGeo(c, c.db, key); tryAgain(c, err) {
			return
		}
	}
	d.strings[key] = append([]byte(nil), args[2]...)
	if flags&setKeepTTL == 0 {
		delete(d.expires, key)
	}
	if expire != nil {
		d.expires[key] = at
	}
	if flags&setGet == 0 {
		c.W.OK()
	}
}

// parseSetOptions reads SET's options as parseExtendedStringArgumentsOrReply
// does: flags, and the time argument of EX/PX/EXAT/PXAT (nil without one);
// msg is the error to reply, or "".
func parseSetOptions(opts [][]byte) (flags int, expire []byte, msg string) {
	for j := 0; j < len(opts); j++ {
		a := opts[j]
		hasNext := j+1 < len(opts)
		expiry := flags & (setKeepTTL | setEX | setPX | setEXAT | setPXAT)
		timed := 0 // the option takes the next word as its time
		switch {
		case optIs(a, "nx") && flags&setXX == 0:
			flags |= setNX
		case optIs(a, "xx") && flags&setNX == 0:
			flags |= setXX
		case optIs(a, "get"):
			flags |= setGet
		case optIs(a, "keepttl") && expiry&^setKeepTTL == 0:
			flags |= setKeepTTL
		case optIs(a, "ex") && expiry&^setEX == 0 && hasNext:
			timed = setEX
		case optIs(a, "px") && expiry&^setPX == 0 && hasNext:
			timed = setPX
		case optIs(a, "exat") && expiry&^setEXAT == 0 && hasNext:
			timed = setEXAT
		case optIs(a, "pxat") && expiry&^setPXAT == 0 && hasNext:
			timed = setPXAT
		default:
			return 0, nil, errSyntax
		}
		if timed != 0 {
			flags |= timed
			expire = opts[j+1]
			j++
		}
	}
	return flags, expire, ""
}

// setExpireAt turns SET's time argument into an absolute Unix time in
// milliseconds; msg is the error to reply, or "".
func setExpireAt(expire []byte, flags int) (at int64, msg string) {
	ms, ok := geo.ParseInt(expire)
	if !ok {
		return 0, errNotInt
	}
	const badTime = "ERR invalid expire time in 'set' command"
	seconds := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (seconds && ms > math.MaxInt64/1000) {
		return 0, badTime
	}
	if seconds {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += nowMS() // may wrap, which the next check catches as Redis does
	}
	if ms <= 0 {
		return 0, badTime
	}
	return ms, ""
}

// get: GET key
func get(e *Engine, c *Client, args [][]byte) {
	k, err := e.tryKindOf(c, args[1]) // cluster mode: unknown is not missing
	if tryAgain(c, err) {
		return
	}
	switch k {
	case kindZset:
		c.W.Error(errWrongType)
	case kindString:
		c.W.Bulk(e.dbs[c.db].strings[string(args[1])])
	default:
		c.W.Null()
	}
}
