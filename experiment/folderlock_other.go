//go:build !unix

package experiment

import "os"

// tryLock is a no-op where advisory file locks are not available: the
// run folder is not locked there.
func tryLock(*os.File) (held bool, err error) { return false, nil }

func unlock(*os.File) error { return nil }
