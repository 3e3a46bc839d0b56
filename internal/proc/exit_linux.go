package proc

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// Exited returns a channel closed when the process pid has exited (or at once when there
// is none). It watches through a pidfd, which the kernel makes readable when the process
// ends, so the news comes in milliseconds, from no tmux hook and no list. The watch ends
// with ctx; a kernel without pidfd (before Linux 5.3) closes nothing, and the caller's own
// looks remain the way it learns.
func Exited(ctx context.Context, pid int) <-chan struct{} {
	done := make(chan struct{})
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		close(done)
		return done
	}
	if err != nil {
		return done
	}
	go func() {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for ctx.Err() == nil {
			// A bounded poll, so the watch notices ctx ending within a second.
			n, err := unix.Poll(fds, int(time.Second/time.Millisecond))
			if err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			if n > 0 {
				close(done)
				return
			}
		}
	}()
	return done
}
