package commands

// cstr cuts an argument at its first NUL byte: Redis compares options
// with strcasecmp, which stops there.
func cstr(b []byte) []byte {
	for i, ch := range b {
		if ch == 0 {
			return b[:i]
		}
	}
	return b
}

// optIs reports whether an argument is the option word lower, as Redis's
// strcasecmp sees it.
func optIs(b []byte, lower string) bool { return eq(cstr(b), lower) }
