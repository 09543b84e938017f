//go:build linux

package tests

import "syscall"

// childProcAttr makes the kernel kill a server if the test binary dies
// without running its cleanups (a panic, SIGKILL from go test -timeout).
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
