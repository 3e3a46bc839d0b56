package main

import (
	"context"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// asked are the commands someone waits on for an answer: the ones a HOST:TARGET runs
// on a host through ssh.
var asked = map[string]bool{"send": true, "approve": true, "deny": true, "wait": true, "history": true}

// endsWithReader returns ctx ended once out, a pipe or a socket, has no reader left:
// nobody will read the answer. It is how a command run on a host hears that its asker
// hung up (Ctrl-C on HOST:TARGET): sshd closes the session's pipes and signals nothing
// to a command that has no terminal, which would otherwise wait on to its timeout. Out
// being anything else (a terminal, a file) changes nothing.
func endsWithReader(ctx context.Context, out io.Writer) context.Context {
	f, ok := out.(*os.File)
	if !ok {
		return ctx
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return ctx
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		if readerGone(int(f.Fd())) {
			cancel()
		}
	}()
	return ctx
}

// readerGone blocks until fd, the writing end of a pipe or a socket, has no reader
// (POLLERR for a pipe, POLLHUP for a socket shut down both ways), and reports whether it
// came to that. It asks for no event: those two are reported whatever is asked.
func readerGone(fd int) bool {
	for {
		fds := []unix.PollFd{{Fd: int32(fd)}}
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || fds[0].Revents&unix.POLLNVAL != 0 {
			return false
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			return true
		}
	}
}
