//go:build linux

package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// openPTY opens a pty in raw mode: the slave, a client's tty at path, and the master,
// its terminal.
func openPTY(t *testing.T) (master, slave int, path string) {
	t.Helper()
	master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	t.Cleanup(func() { unix.Close(master) })
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(master, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	path = "/dev/pts/" + strconv.Itoa(int(n))
	slave, err = unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(slave) })
	tio, err := unix.IoctlGetTermios(slave, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(slave, unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	return master, slave, path
}

// interruptedWrite runs writeSequence(ctx, slave, seq) on a thread of its own, waits
// until its write() blocks with part of seq written (seq is more than the pty holds),
// calls interrupt and signals the thread, as SIGCHLD may: the write() returns what it
// wrote so far. Then the terminal reads; interruptedWrite returns what it received and
// writeSequence's error.
func interruptedWrite(t *testing.T, ctx context.Context, seq []byte, interrupt func()) ([]byte, error) {
	t.Helper()
	master, slave, _ := openPTY(t)
	tids, result := make(chan int, 1), make(chan error, 1)
	go func() {
		runtime.LockOSThread() // ended with its goroutine: the signal has hit this thread
		tids <- unix.Gettid()
		result <- writeSequence(ctx, slave, seq)
	}()
	tid := <-tids
	blocked := func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
		fds := []unix.PollFd{{Fd: int32(master), Events: unix.POLLIN}}
		n, _ := unix.Poll(fds, 0)
		return strings.HasPrefix(string(b), strconv.Itoa(unix.SYS_WRITE)+" ") && n > 0
	}
	if !tmuxtest.Poll(10*time.Second, blocked) {
		t.Fatal("the write never blocked")
	}
	interrupt()
	if err := unix.Tgkill(os.Getpid(), tid, unix.SIGURG); err != nil {
		t.Fatal(err)
	}
	received := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 1<<16)
		for {
			n, err := unix.Read(master, buf)
			if n > 0 {
				all = append(all, buf[:n]...)
			}
			if err != nil && !errors.Is(err, unix.EINTR) || n == 0 && err == nil {
				received <- all
				return
			}
		}
	}()
	var err error
	select {
	case err = <-result:
	case <-time.After(10 * time.Second):
		t.Fatal("the write never ended")
	}
	unix.Close(slave) // the terminal reads what is left, then EIO
	return <-received, err
}

// bigSequence is an OSC 9 larger than a pty holds.
func bigSequence() []byte {
	return []byte("\x1b]9;" + strings.Repeat("a", 1<<18) + st)
}

// TestWriteSequenceFinishesAfterASignal: a write() a signal interrupts wrote part of the
// sequence; the rest follows, and the terminal receives all of it.
func TestWriteSequenceFinishesAfterASignal(t *testing.T) {
	seq := bigSequence()
	got, err := interruptedWrite(t, context.Background(), seq, func() {})
	if err != nil || !bytes.Equal(got, seq) {
		t.Errorf("writeSequence = %v; the terminal received %d bytes of %d, ending %q", err, len(got), len(seq), tail(got, 20))
	}
}

// TestWriteSequenceEndsWhatItGivesUp: a write() interrupted past the deadline gives up
// the rest of the sequence, but ends the strings it opened: the terminal, or the outer
// tmux and its own terminal, are back between sequences.
func TestWriteSequenceEndsWhatItGivesUp(t *testing.T) {
	for _, nested := range []bool{false, true} {
		t.Run(fmt.Sprintf("nested=%v", nested), func(t *testing.T) {
			seq := bigSequence()
			if nested {
				seq = []byte(passthrough(string(seq)))
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got, err := interruptedWrite(t, ctx, seq, cancel)
			if !errors.Is(err, context.Canceled) || len(got) >= len(seq) {
				t.Fatalf("writeSequence = %v after %d bytes of %d; want it given up", err, len(got), len(seq))
			}
			if msg := endsBetweenSequences(got, nested); msg != "" {
				t.Errorf("%s: the terminal received %q … %q", msg, got[:20], tail(got, 20))
			}
		})
	}
}

// endsBetweenSequences says what is wrong with stream, what a terminal received, if it
// does not end between sequences; nested: the terminal is a tmux, which passes on the
// inside of its passthrough when that ends.
func endsBetweenSequences(stream []byte, nested bool) string {
	var p vtParser
	for _, b := range stream {
		p.feed(b)
	}
	if !p.ground() {
		return "the terminal is left inside a sequence"
	}
	if !nested || !bytes.HasPrefix(stream, []byte(passthroughStart)) {
		return ""
	}
	inner, rest, ended := passedOn(stream)
	if !ended || len(rest) > 0 {
		return fmt.Sprintf("the outer tmux's passthrough does not end (ended %v, %q after it)", ended, rest)
	}
	var q vtParser
	for _, b := range inner {
		q.feed(b)
	}
	if !q.ground() {
		return "the outer tmux passes on a sequence that does not end"
	}
	return ""
}

// passedOn is what tmux passes on to its terminal of the passthrough stream starts with,
// as its parser reads it: ESC ESC is an ESC, ESC \ ends it, ESC and anything else is
// that. rest follows the passthrough's end.
func passedOn(stream []byte) (inner, rest []byte, ended bool) {
	in, ok := bytes.CutPrefix(stream, []byte(passthroughStart))
	if !ok {
		return nil, stream, false
	}
	for i := 0; i < len(in); i++ {
		if in[i] != 0x1b {
			inner = append(inner, in[i])
			continue
		}
		if i++; i == len(in) {
			return inner, nil, false
		}
		if in[i] == '\\' {
			return inner, in[i+1:], true
		}
		inner = append(inner, in[i])
	}
	return inner, nil, false
}

// TestEndingClosesWhatACutLeavesOpen: a sequence cut after any byte, then its ending,
// leaves the terminal between sequences; inside tmux's passthrough, the outer tmux too,
// and what it passes on.
func TestEndingClosesWhatACutLeavesOpen(t *testing.T) {
	n := Outbound(hostile())
	for _, r := range []clientRoute{{proto: OSC9}, {proto: OSC777}, {proto: OSC99}, {proto: OSC777, nested: true}, {proto: OSC99, nested: true}} {
		seq := r.sequence(n)
		for cut := 1; cut < len(seq); cut++ {
			stream := append(bytes.Clone(seq[:cut]), ending(seq[:cut])...)
			if msg := endsBetweenSequences(stream, r.nested); msg != "" {
				t.Errorf("%s nested=%v cut after %q: %s (ending %q)", r.proto, r.nested, tail(seq[:cut], 12), msg, ending(seq[:cut]))
			}
		}
	}
}

// TestAStuckWriteHoldsItsTerminalsTurn: a write blocked on a terminal that reads nothing
// returns at its deadline but holds the terminal's turn until the terminal reads, so
// that the writes after it wait for the turn (each until its own deadline) instead of
// piling up, blocked, a goroutine and an fd each.
func TestAStuckWriteHoldsItsTerminalsTurn(t *testing.T) {
	master, slave, path := openPTY(t)
	if err := unix.SetNonblock(slave, true); err != nil {
		t.Fatal(err)
	}
	for { // the terminal reads nothing: fill its tty
		if _, err := unix.Write(slave, make([]byte, 4096)); err != nil {
			break
		}
	}
	held, err := takeTurn(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := openTTY(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := writeWhole(ctx, fd, bigSequence(), func() { unix.Close(fd); held() }); !errors.Is(err, errNotReading) {
		t.Fatalf("writeWhole to a terminal that reads nothing = %v, want errNotReading", err)
	}
	next, cancelNext := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancelNext()
	if _, err := takeTurn(next, path); !errors.Is(err, errBusy) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("the next write's turn = %v, want errBusy at its deadline", err)
	}
	// The terminal reads again: the write ends and gives the turn back.
	if err := unix.SetNonblock(master, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	if !tmuxtest.Poll(10*time.Second, func() bool {
		for n := 1; n > 0; n, _ = unix.Read(master, buf) {
		}
		soon, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		var giveBack func()
		if giveBack, err = takeTurn(soon, path); err == nil {
			giveBack()
		}
		return err == nil
	}) {
		t.Fatalf("no turn after the terminal read again: %v", err)
	}
}
