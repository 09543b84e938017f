package commands

import (
	"testing"
	"time"
)

const errTTL = "-ERR position TTL must be 0 (never) or 0.001 to 1000000000 seconds, or DEFAULT\r\n"

// A key's own position TTL wins over the global one, 0 included, and
// DEFAULT hands it back.
func TestGeoshardTTL(t *testing.T) {
	s := newSession(t)
	s.e.Router().SetPositionTTL(30 * time.Second)
	s.run([]step{
		{"GEOSHARD TTL drivers", ":30000\r\n"},
		{"GEOSHARD TTL drivers 2.5", "+OK\r\n"},
		{"GEOSHARD TTL drivers", ":2500\r\n"},
		{"GEOSHARD TTL drivers 0", "+OK\r\n"},
		{"GEOSHARD TTL drivers", ":0\r\n"},
		{"GEOSHARD TTL drivers default", "+OK\r\n"},
		{"GEOSHARD TTL drivers", ":30000\r\n"},
		{"GEOSHARD TTL drivers -1", errTTL},
		{"GEOSHARD TTL drivers NaN", errTTL},
		{"GEOSHARD TTL drivers nan", errTTL},
		{"GEOSHARD TTL drivers inf", errTTL},
		{"GEOSHARD TTL drivers 1e-12", errTTL},
		{"GEOSHARD TTL drivers 0.0009", errTTL},
		{"GEOSHARD TTL drivers 1e10", errTTL},
		{"GEOSHARD TTL drivers", ":30000\r\n"}, // none of them changed it
		{"GEOSHARD TTL drivers 0.001", "+OK\r\n"},
		{"GEOSHARD TTL drivers", ":1\r\n"},
		{"GEOSHARD TTL drivers 1 2", "-ERR syntax error\r\n"},
		{"GEOSHARD TTL", "-ERR wrong number of arguments for 'geoshard|ttl' command\r\n"},
		{"GEOSHARD NOPE", "-ERR unknown subcommand 'NOPE'. Try GEOSHARD HELP.\r\n"},
	})
}

// Positions of a key with its own TTL expire without a global one. The
// TTL is a second: ZCARD right after the GEOADD must find the position,
// and with 0.2 s a stall of 0.2 s between the two on a loaded machine
// would fail it (none did in 300 runs at load 6-10; TestLostDeleteExpires
// failed so with 300 ms: d7b7fad).
func TestGeoshardTTLExpires(t *testing.T) {
	s := newSession(t)
	s.run([]step{
		{"GEOSHARD TTL drivers 1", "+OK\r\n"},
		{"GEOADD drivers 4.9 52.37 d1", ":1\r\n"},
		{"ZCARD drivers", ":1\r\n"},
	})
	time.Sleep(1200 * time.Millisecond)
	s.run([]step{
		{"ZCARD drivers", ":0\r\n"},
		{"GEOPOS drivers d1", "*1\r\n*-1\r\n"},
	})
}
