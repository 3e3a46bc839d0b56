// Package logfile opens the daemon's JSON log in its state directory. Stdout carries data
// only, so the log is where details go.
package logfile

import (
	"fmt"
	"os"

	"github.com/rs/zerolog"
)

// maxSize is where the log is rotated once, at open: one old generation is kept.
const maxSize = 10 << 20

// Open returns a logger writing JSON lines to path at the given level, and a close func.
func Open(path, level string) (zerolog.Logger, func() error, error) {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("logfile: level %q: %w", level, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxSize {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("logfile: open %s: %w", path, err)
	}
	log := zerolog.New(f).Level(lvl).With().Timestamp().Int("pid", os.Getpid()).Logger()
	return log, f.Close, nil
}
