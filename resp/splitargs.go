package resp

// SplitArgs splits an inline command or a config line the way Redis's sdssplitargs does:
// words separated by blanks, "double quotes" with \n \r \t \b \a \\ \" and
// \xHH escapes, 'single quotes' with only \' escaped. A closing quote must
// be followed by a blank or the end of the line.
func SplitArgs(line []byte) ([][]byte, bool) {
	var words [][]byte
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i >= len(line) {
			return words, true
		}
		var cur []byte
		inDQ, inSQ := false, false
		for done := false; !done; {
			if inDQ {
				if i >= len(line) {
					return nil, false
				}
				switch c := line[i]; {
				case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
					cur = append(cur, hexVal(line[i+2])<<4|hexVal(line[i+3]))
					i += 3
				case c == '\\' && i+1 < len(line):
					i++
					switch line[i] {
					case 'n':
						cur = append(cur, '\n')
					case 'r':
						cur = append(cur, '\r')
					case 't':
						cur = append(cur, '\t')
					case 'b':
						cur = append(cur, '\b')
					case 'a':
						cur = append(cur, '\a')
					default:
						cur = append(cur, line[i])
					}
				case c == '"':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else if inSQ {
				if i >= len(line) {
					return nil, false
				}
				switch c := line[i]; {
				case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
					i++
					cur = append(cur, '\'')
				case c == '\'':
					if i+1 < len(line) && !isSpace(line[i+1]) {
						return nil, false
					}
					done = true
				default:
					cur = append(cur, c)
				}
			} else {
				if i >= len(line) {
					break
				}
				switch c := line[i]; c {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inDQ = true
				case '\'':
					inSQ = true
				default:
					cur = append(cur, c)
				}
			}
			if i < len(line) {
				i++
			}
		}
		if cur == nil {
			cur = []byte{}
		}
		words = append(words, cur)
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
