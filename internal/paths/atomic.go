package paths

import (
	"os"
	"path/filepath"
)

// WriteAtomic replaces the file at path with data: a temp file in the same directory,
// then rename, so a reader sees the old content or the new, never half of it. The temp
// file has a fixed name: only the daemon writes the files it is used for (it holds the
// lock), after every change, so each write is four system calls and no more. No fsync:
// these files are published state, rebuilt by the next daemon.
func WriteAtomic(path string, data []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
