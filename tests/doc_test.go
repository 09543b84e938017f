// Package tests holds the end-to-end tests: real geoshard processes (or
// nodes over real sockets) on loopback ports, side by side with a real
// redis-server 7.0 (differential streams compared byte for byte, the
// GEO-SPEC error table), real clients (go-redis, redis-cli, redis-py),
// embedded etcd for cluster mode, and real faults (kill -9, SIGSTOP, disk
// full, idle past every timeout). `tests/run` installs what they need.
package tests
