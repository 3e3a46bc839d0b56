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

// Log is the daemon's log file; its level can change while it runs (options reloaded).
type Log struct {
	zerolog.Logger
	out     *rotating
	level   *levelFilter
	repeats *repeats
}

// Open returns a log writing JSON lines to path at the given level.
func Open(path, level string) (*Log, error) {
	out, err := openRotating(path)
	if err != nil {
		return nil, err
	}
	l := &Log{out: out, level: &levelFilter{w: out}}
	if err := l.SetLevel(level); err != nil {
		out.Close()
		return nil, err
	}
	// Milliseconds: the daemon is judged by how fast it notices things.
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	l.Logger = zerolog.New(l.level).With().Timestamp().Int("pid", os.Getpid()).Logger()
	l.repeats = newRepeats(l.Logger)
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

// Close writes the counts of repeated lines still held, then closes the file.
func (l *Log) Close() error {
	l.repeats.close()
	return l.out.Close()
}

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
