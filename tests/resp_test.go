package tests

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The differential tests compare servers byte for byte, so the reader below
// never interprets a reply: it only finds where one reply ends and returns
// exactly the bytes the server sent, for every RESP2 and RESP3 type.

const (
	// maxBulk bounds what a buggy server can make the test allocate.
	maxBulk = 64 << 20
	// maxElems bounds aggregate sizes for the same reason.
	maxElems = 1 << 22
	// maxDepth bounds nesting (Redis replies nest at most a few levels).
	maxDepth = 32
)

// errMalformed marks a reply that is not valid RESP.
var errMalformed = errors.New("malformed RESP reply")

// readReply returns the raw bytes of exactly one reply. An attribute (`|`)
// is returned together with the reply it annotates.
func readReply(br *bufio.Reader) ([]byte, error) {
	var out []byte
	if err := readValue(br, &out, 0); err != nil {
		return out, err
	}
	return out, nil
}

func readValue(br *bufio.Reader, out *[]byte, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("%w: nesting deeper than %d", errMalformed, maxDepth)
	}
	line, err := readLine(br, out)
	if err != nil {
		return err
	}
	if len(line) == 0 {
		return fmt.Errorf("%w: empty type line", errMalformed)
	}
	typ, rest := line[0], line[1:]
	switch typ {
	case '+', '-', ':', ',', '#', '(':
		return checkSimple(typ, rest)
	case '_':
		if len(rest) != 0 {
			return fmt.Errorf("%w: null with payload %q", errMalformed, rest)
		}
		return nil
	case '$', '!', '=':
		n, err := parseLen(rest, typ == '$')
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		if n > maxBulk {
			return fmt.Errorf("%w: bulk of %d bytes exceeds test limit", errMalformed, n)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			*out = append(*out, buf...)
			return fmt.Errorf("reading %d-byte bulk: %w", n, err)
		}
		*out = append(*out, buf...)
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return fmt.Errorf("%w: bulk not terminated by CRLF", errMalformed)
		}
		return nil
	case '*', '~', '>', '%', '|':
		n, err := parseLen(rest, typ == '*')
		if err != nil {
			return err
		}
		if n < 0 {
			return nil
		}
		if typ == '%' || typ == '|' {
			n *= 2
		}
		if n > maxElems {
			return fmt.Errorf("%w: aggregate of %d elements exceeds test limit", errMalformed, n)
		}
		for i := 0; i < n; i++ {
			if err := readValue(br, out, depth+1); err != nil {
				return fmt.Errorf("element %d of %c%d: %w", i, typ, n, err)
			}
		}
		if typ == '|' {
			// An attribute annotates the reply that follows it.
			return readValue(br, out, depth)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown type byte %q", errMalformed, typ)
}

// readLine appends one CRLF-terminated line to out and returns it without
// the CRLF. A bare LF is an error: servers must terminate lines with CRLF.
func readLine(br *bufio.Reader, out *[]byte) ([]byte, error) {
	start := len(*out)
	for {
		chunk, err := br.ReadSlice('\n')
		*out = append(*out, chunk...)
		if err == bufio.ErrBufferFull {
			if len(*out)-start > maxBulk {
				return nil, fmt.Errorf("%w: line longer than %d bytes", errMalformed, maxBulk)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading reply line: %w", err)
		}
		break
	}
	line := (*out)[start:]
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("%w: line %q not terminated by CRLF", errMalformed, line)
	}
	return line[:len(line)-2], nil
}

func checkSimple(typ byte, payload []byte) error {
	if bytes.ContainsAny(payload, "\r\n") {
		return fmt.Errorf("%w: CR or LF inside %q line", errMalformed, typ)
	}
	switch typ {
	case ':':
		if _, err := strconv.ParseInt(string(payload), 10, 64); err != nil {
			return fmt.Errorf("%w: integer %q", errMalformed, payload)
		}
	case '#':
		if string(payload) != "t" && string(payload) != "f" {
			return fmt.Errorf("%w: boolean %q", errMalformed, payload)
		}
	case ',', '(':
		if len(payload) == 0 {
			return fmt.Errorf("%w: empty %q value", errMalformed, typ)
		}
	}
	return nil
}

func parseLen(b []byte, allowNull bool) (int, error) {
	n, err := strconv.Atoi(string(b))
	if err != nil || n < -1 || (n == -1 && !allowNull) {
		return 0, fmt.Errorf("%w: length %q", errMalformed, b)
	}
	return n, nil
}

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

// splitAggregate splits a raw top-level array/set reply into its header
// line and the raw bytes of each element.
func splitAggregate(raw []byte) (header []byte, elems [][]byte, err error) {
	br := bufio.NewReader(bytes.NewReader(raw))
	var hdr []byte
	line, err := readLine(br, &hdr)
	if err != nil {
		return nil, nil, err
	}
	if len(line) == 0 || (line[0] != '*' && line[0] != '~') {
		return nil, nil, fmt.Errorf("%w: not an array: %q", errMalformed, line)
	}
	n, err := parseLen(line[1:], true)
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i < n; i++ {
		e, err := readReply(br)
		if err != nil {
			return nil, nil, err
		}
		elems = append(elems, e)
	}
	return hdr, elems, nil
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
