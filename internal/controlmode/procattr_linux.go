//go:build linux

package controlmode

import "syscall"

// procAttr has the kernel kill the tmux client when the process that started it dies,
// however it dies. A daemon killed with SIGKILL otherwise leaves its clients behind,
// and one that tmux still had output queued for is never let go: it stays attached,
// no client-detached fires, and kill-server waits on it forever (seen on tmux 3.3a).
// (The kernel ties it to the starting thread; the Go runtime keeps its threads, and
// paneherd locks none to a goroutine.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
