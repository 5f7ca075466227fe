//go:build !unix

package bounded

// nonBlock has no equivalent here: [Open] checks what the path is before
// it opens it.
const nonBlock = 0
