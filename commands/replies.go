package commands

// Errors Redis sends word for word.
const (
	errSyntax    = "ERR syntax error"
	errWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value"
	errNotFloat  = "ERR value is not a valid float"
	errNotInt    = "ERR value is not an integer or out of range"
	errUnit      = "ERR unsupported unit provided. please use M, KM, FT, MI"
	errNoMember  = "ERR could not decode requested zset member"
)
