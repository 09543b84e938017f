//go:build !unix

package server

const openNonBlock = 0
