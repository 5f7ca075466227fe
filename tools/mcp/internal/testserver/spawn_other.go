//go:build !unix

package testserver

import "errors"

// spawn is for Unix systems only.
func spawn(file string, double bool) error {
	return errors.New("spawn needs Unix sessions")
}
