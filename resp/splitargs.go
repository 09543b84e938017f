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
		word, next, ok := splitWord(line, i)
		if !ok {
			return nil, false
		}
		if word == nil {
			word = []byte{} // "" is a word
		}
		words = append(words, word)
		i = next
	}
}

// splitWord reads the word that starts at line[i]: bytes up to a blank
// (or NUL), with a quoted part spliced in where a quote opens; the
// closing quote ends the word. It returns where the next word may start.
func splitWord(line []byte, i int) (word []byte, next int, ok bool) {
	for ; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ', '\n', '\r', '\t', 0:
			return word, i + 1, true
		case '"':
			return doubleQuoted(line, i+1, word)
		case '\'':
			return singleQuoted(line, i+1, word)
		default:
			word = append(word, c)
		}
	}
	return word, i, true
}

// doubleQuoted appends a "double quoted" part, from just past its opening
// quote, with its escapes decoded.
func doubleQuoted(line []byte, i int, word []byte) ([]byte, int, bool) {
	for ; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+3 < len(line) && line[i+1] == 'x' && isHex(line[i+2]) && isHex(line[i+3]):
			word = append(word, hexVal(line[i+2])<<4|hexVal(line[i+3]))
			i += 3
		case c == '\\' && i+1 < len(line):
			i++
			word = append(word, unescape(line[i]))
		case c == '"':
			return closeQuote(line, i, word)
		default:
			word = append(word, c)
		}
	}
	return nil, 0, false // unterminated
}

// singleQuoted appends a 'single quoted' part, where only \' is an escape.
func singleQuoted(line []byte, i int, word []byte) ([]byte, int, bool) {
	for ; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line) && line[i+1] == '\'':
			i++
			word = append(word, '\'')
		case c == '\'':
			return closeQuote(line, i, word)
		default:
			word = append(word, c)
		}
	}
	return nil, 0, false // unterminated
}

// closeQuote ends a word at the closing quote line[i], which must be
// followed by a blank or the end of the line.
func closeQuote(line []byte, i int, word []byte) ([]byte, int, bool) {
	if i+1 < len(line) && !isSpace(line[i+1]) {
		return nil, 0, false
	}
	return word, i + 1, true
}

// unescape decodes the byte after a backslash in double quotes.
func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	case 'b':
		return '\b'
	case 'a':
		return '\a'
	}
	return c
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
