//go:build !linux

package tests

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return nil }
