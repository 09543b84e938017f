//go:build unix

package snapshot

import (
	"os"
	"syscall"
)

// syscallNoFollow keeps a cleaner from following a symbolic link that
// merely looks like a temporary file.
const syscallNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// openNonBlock opens a FIFO without waiting for its writer.
const openNonBlock = syscall.O_NONBLOCK

// lockFile takes the exclusive advisory lock a live write holds on its
// temporary file; it is dropped when the file is closed or the process dies.
func lockFile(f *os.File) error { return tryLock(f) }

func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
