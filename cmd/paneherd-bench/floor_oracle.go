package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// followPlayers is floor-oracle's knowledge: it reads where each player is now, then
// follows their logs (inotify) and pauses a pane while it is busy.
func (f *floorRun) followPlayers(ctx context.Context) error {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("inotify: %w", err)
	}
	dirs := map[int32]string{} // watch -> directory
	for log := range f.logs {
		dir := filepath.Dir(log)
		wd, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_MODIFY)
		if err != nil {
			syscall.Close(fd)
			return fmt.Errorf("inotify %s: %w", dir, err)
		}
		dirs[int32(wd)] = dir
	}
	p := &players{floorRun: f, read: map[string]int64{}, session: map[string]string{}}
	for _, pane := range f.panes {
		p.session[pane.id] = pane.session
	}
	for log := range f.logs { // after the watches: nothing written since is missed
		p.follow(log)
	}
	go func() {
		defer syscall.Close(fd)
		if err := p.watch(ctx, fd, dirs); err != nil && ctx.Err() == nil {
			f.fail(err)
		}
	}()
	return nil
}

// players is what floor-oracle knows of the players' logs.
type players struct {
	*floorRun
	read    map[string]int64  // log -> how much of it was read
	session map[string]string // pane -> its session
}

// watch reads inotify events until an error, and follows each log they name.
func (p *players) watch(ctx context.Context, fd int, dirs map[int32]string) error {
	buf := make([]byte, 64<<10)
	for ctx.Err() == nil {
		n, err := syscall.Read(fd, buf)
		if err != nil {
			return fmt.Errorf("inotify: %w", err)
		}
		for at := 0; at+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[at]))
			name := buf[at+syscall.SizeofInotifyEvent : at+syscall.SizeofInotifyEvent+int(ev.Len)]
			at += syscall.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 { // events were lost: read every log
				for log := range p.logs {
					p.follow(log)
				}
				continue
			}
			if log := filepath.Join(dirs[ev.Wd], strings.TrimRight(string(name), "\x00")); p.logs[log] != "" {
				p.follow(log)
			}
		}
	}
	return nil
}

// follow reads what the player wrote to its log since the last read; a pane that turns
// busy is paused and polled, one that stops is continued and captured once.
func (p *players) follow(log string) {
	state := p.lastState(log)
	if state == "" {
		return
	}
	id, busy := p.logs[log], state == "BUSY"
	p.mu.Lock()
	was := p.polled[id]
	if busy {
		p.polled[id] = true
	} else if was {
		delete(p.polled, id)
		p.once = append(p.once, id)
	}
	p.mu.Unlock()
	c := p.outputs[p.session[id]]
	if was == busy || c == nil { // no change, or a pane tmux did not list
		return
	}
	action := "continue"
	if busy {
		action = "pause"
	}
	if _, err := fmt.Fprintf(c.in, "refresh-client -A '%s:%s'\n", id, action); err != nil {
		p.fail(fmt.Errorf("%s %s: %w", action, id, err))
	}
}

// lastState is the last state the log says since the last read ("unix-ns STATE" lines);
// "": nothing new.
func (p *players) lastState(log string) string {
	f, err := os.Open(log)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.NewSectionReader(f, p.read[log], 1<<20))
	b = b[:bytes.LastIndexByte(b, '\n')+1] // whole lines only: the rest is read with the next
	p.read[log] += int64(len(b))
	words := strings.Fields(string(b))
	if len(words) == 0 {
		return ""
	}
	return words[len(words)-1]
}
