package shard

import "hash/maphash"

// hashSeed seeds every member hash of the process. It is chosen once, at
// start, and never changes, so that a router can hash a member once per
// write and hand the hash to the shard (PutHash) rather than both hashing
// it: the seed stays random per process, as a per-table one would be.
var hashSeed = maphash.MakeSeed()

// Hash returns member's hash as the shards' name indexes compute it. The
// low bits pick a member's position in a name index and the high half
// tags its entry; a caller keying its own table by the same hash should
// use the halves the other way round.
func Hash(member string) uint64 { return maphash.String(hashSeed, member) }
