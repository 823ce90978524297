//go:build !linux

package outcome

import (
	"os"
	"path/filepath"
)

func lstatIn(dir *os.File, dirPath, name string) (Entry, error) {
	fi, err := os.Lstat(filepath.Join(dirPath, name))
	if err != nil {
		return Entry{}, err
	}
	return entryOf(fi), nil
}

func openDirIn(dir *os.File, dirPath, name string) (*os.File, error) {
	return os.Open(filepath.Join(dirPath, name))
}
