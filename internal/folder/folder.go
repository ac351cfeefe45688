// Package folder makes the numbered output folders of baton's commands.
package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// New makes a new folder named name under out (making out if needed),
// or name-2, name-3, … when that exists, and returns its path.
func New(out, name string) (string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("make folder: %w", err)
	}
	base := filepath.Join(out, name)
	for i := 1; ; i++ {
		dir := base
		if i > 1 {
			dir += "-" + strconv.Itoa(i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("make folder: %w", err)
		}
	}
}
