//go:build !linux

package proc

import "context"

// Exited is the pidfd watch of exit_linux.go; other systems have no pidfd, so nothing is
// closed and the caller's own looks (tmux's pane-died hook, the periodic list) remain
// the way it learns of an exit, as on a Linux kernel before 5.3.
func Exited(ctx context.Context, pid int) <-chan struct{} {
	return make(chan struct{})
}
