package tests

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"geoshard/resp"
)

// The differential tests compare servers byte for byte, so replies are
// read with resp.ReadReply, which never interprets a reply: it only finds
// where one ends and returns exactly the bytes the server sent, for every
// RESP2 and RESP3 type, strictly framed.

// readReply returns the raw bytes of exactly one reply. An attribute (`|`)
// is returned together with the reply it annotates.
func readReply(br *bufio.Reader) ([]byte, error) { return resp.ReadReply(br, nil) }

// encodeCommand appends args as a RESP array of bulk strings.
func encodeCommand(buf []byte, args []string) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(a)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, a...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}

// isErrorReply reports whether a raw reply is a simple or blob error.
func isErrorReply(b []byte) bool {
	return len(b) > 0 && (b[0] == '-' || b[0] == '!')
}

// quoteReply renders raw bytes for a failure message, cut at limit bytes.
func quoteReply(b []byte, limit int) string {
	if len(b) <= limit {
		return strconv.Quote(string(b))
	}
	return strconv.Quote(string(b[:limit])) + fmt.Sprintf("... (%d bytes in all)", len(b))
}

// quoteCommand renders a command the way redis-cli would accept it.
func quoteCommand(args []string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \"'\\\r\n\t\x00") && isPrintable(a) {
			parts[i] = a
		} else {
			parts[i] = strconv.Quote(a)
		}
	}
	return strings.Join(parts, " ")
}

func isPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// firstDiff returns the index of the first differing byte.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
