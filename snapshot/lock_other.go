//go:build !unix

package snapshot

import (
	"errors"
	"os"
)

const syscallNoFollow, openNonBlock = 0, 0

// Without flock a live write cannot be told from a leftover, so none is
// removed: a leftover costs disk space, removing a live one a snapshot.
func lockFile(f *os.File) error { return nil }

func tryLock(f *os.File) error { return errors.New("no file locks on this platform") }
