//go:build !unix

package scenario

// openNonBlock is 0 where there are no named pipes to wait on.
const openNonBlock = 0
