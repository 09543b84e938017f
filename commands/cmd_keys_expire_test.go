package commands

import "testing"

// The EXPIRE family's options and limits as redis-server 7.0.15 answers
// them; see cmd_captured_test.go.
func TestExpireArguments(t *testing.T) { runCaptured(t, expireArgScripts) }

var expireArgScripts = []capturedScript{
	{"EXPIRE family arguments", false, []step{
		{"SET k v", "+OK\r\n"},
		{"EXPIRE k 100 NX XX", "-ERR NX and XX, GT or LT options at the same time are not compatible\r\n"},
		{"EXPIRE k 100 GT LT", "-ERR GT and LT options at the same time are not compatible\r\n"},
		{"EXPIRE k 100 FOO", "-ERR Unsupported option FOO\r\n"},
		{"EXPIRE k x", "-ERR value is not an integer or out of range\r\n"},
		{"EXPIRE k 9223372036854775807", "-ERR invalid expire time in 'expire' command\r\n"},
		{"PEXPIRE k 9223372036854775807", "-ERR invalid expire time in 'pexpire' command\r\n"},
		{"EXPIREAT k 9223372036854775807", "-ERR invalid expire time in 'expireat' command\r\n"},
		{"TTL k", ":-1\r\n"},
		{"PTTL nokey", ":-2\r\n"},
		{"EXPIRETIME k", ":-1\r\n"},
		{"PERSIST k", ":0\r\n"},
		{"PERSIST k", ":0\r\n"},
		{"EXPIREAT k 1", ":1\r\n"},
		{"EXISTS k", ":0\r\n"},
	}},
}
