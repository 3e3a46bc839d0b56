// Command paneherd watches every tmux pane and tells which AI coding agent or shell is
// READY, BUSY, waiting for a confirmation, or failing.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	code := run(context.Background(), os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
	os.Exit(code)
}

// withSignals ends ctx on SIGINT, SIGTERM and SIGHUP (a terminal closed under
// `paneherd demo` must still clean up).
func withSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}
