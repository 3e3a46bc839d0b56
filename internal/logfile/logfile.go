// Package logfile opens the daemon's JSON log in its state directory. Stdout carries data
// only, so the log is where details go.
package logfile

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/rs/zerolog"
)

// maxSize is where the log is rotated once, at open: one old generation is kept.
const maxSize = 10 << 20

// Log is the daemon's log file; its level can change while it runs (options reloaded).
type Log struct {
	zerolog.Logger
	file  *os.File
	level *levelFilter
}

// Open returns a log writing JSON lines to path at the given level.
func Open(path, level string) (*Log, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxSize {
		os.Rename(path, path+".1")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("logfile: open %s: %w", path, err)
	}
	l := &Log{file: f, level: &levelFilter{w: f}}
	if err := l.SetLevel(level); err != nil {
		f.Close()
		return nil, err
	}
	// Milliseconds: the daemon is judged by how fast it notices things.
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	l.Logger = zerolog.New(l.level).With().Timestamp().Int("pid", os.Getpid()).Logger()
	return l, nil
}

// SetLevel changes what is written from now on.
func (l *Log) SetLevel(level string) error {
	lvl, err := zerolog.ParseLevel(level)
	if err != nil {
		return fmt.Errorf("logfile: level %q: %w", level, err)
	}
	l.level.min.Store(int32(lvl))
	return nil
}

// Close closes the file.
func (l *Log) Close() error { return l.file.Close() }

// levelFilter drops events below its level; the logger itself logs everything to it, so
// the level can move without rebuilding loggers already handed out.
type levelFilter struct {
	w   io.Writer
	min atomic.Int32
}

func (f *levelFilter) Write(p []byte) (int, error) { return f.w.Write(p) }

func (f *levelFilter) WriteLevel(l zerolog.Level, p []byte) (int, error) {
	if int32(l) < f.min.Load() {
		return len(p), nil
	}
	return f.w.Write(p)
}
