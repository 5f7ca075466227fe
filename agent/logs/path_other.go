//go:build !unix

package logs

import "io/fs"

// noFollow and nonBlock have no equivalent here: [prepare] checks with
// os.Lstat before it opens.
const (
	noFollow = 0
	nonBlock = 0
)

// ownedByUser reports whether the file fi describes belongs to the user;
// without Unix owners, every file does.
func ownedByUser(fs.FileInfo) bool { return true }

// links returns how many names the file fi describes has; here, 1.
func links(fs.FileInfo) uint64 { return 1 }
