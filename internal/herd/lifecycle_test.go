package herd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/tmux"
)

// TestHelperDaemon is run as a child process by Start: a daemon that takes the lock,
// publishes a snapshot ($HERD_FAKE_SNAPSHOT, else an empty one) and runs until killed.
func TestHelperDaemon(t *testing.T) {
	dir := os.Getenv("HERD_FAKE_DAEMON")
	if dir == "" {
		t.Skip("helper process only")
	}
	if _, err := daemonlock.Acquire(filepath.Join(dir, "daemon.lock")); err != nil {
		os.Exit(3)
	}
	snap := os.Getenv("HERD_FAKE_SNAPSHOT")
	if snap == "" {
		snap = "{}"
	}
	os.WriteFile(filepath.Join(dir, "snapshot.json"), []byte(snap), 0o600)
	for {
		time.Sleep(time.Minute)
	}
}

// fakeDaemon returns a Daemon whose binary is script, and where its runtime lives.
func fakeDaemon(t *testing.T, script string) (Daemon, string) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock")
	os.WriteFile(sock, nil, 0o600) // Start wants a tmux server there
	d := Daemon{Server: tmux.Server{Socket: sock}, Dir: paths.Dir{State: filepath.Join(dir, "state"), Runtime: sock + ".paneherd"}}
	bin := filepath.Join(dir, "paneherd")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERD_FAKE_DAEMON", d.Dir.Runtime)
	return d, bin
}

// kill ends the fake daemon as SIGKILL would a real one, and waits until its lock is free.
func kill(t *testing.T, d Daemon, pid int) {
	t.Helper()
	syscall.Kill(pid, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); d.PID() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still holds the lock", pid)
		}
	}
}

// longRevive makes "young" and "recently revived" hold for the whole test, however slow
// the machine.
func longRevive(t *testing.T) {
	was := reviveEvery
	reviveEvery = time.Hour
	t.Cleanup(func() { reviveEvery = was })
}

func TestReviveOnceForADaemonThatDiesYoung(t *testing.T) {
	longRevive(t)
	d, bin := fakeDaemon(t, "exec "+os.Args[0]+" -test.run=^TestHelperDaemon$")
	ctx := context.Background()
	pid, err := d.Revive(ctx, bin)
	if err != nil || pid == 0 {
		t.Fatalf("first Revive: pid %d, %v", pid, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	kill(t, d, pid)
	// Died seconds after it started: revived once more...
	pid, err = d.Revive(ctx, bin)
	if err != nil || pid == 0 {
		t.Fatalf("Revive after a young death: pid %d, %v", pid, err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	kill(t, d, pid)
	// ...but not again within reviveEvery.
	if pid, err := d.Revive(ctx, bin); pid != 0 || err != nil {
		t.Errorf("Revive right after a second young death: pid %d, %v; want none started", pid, err)
	}
}

func TestReviveLeavesAStoppedDaemonOff(t *testing.T) {
	d, bin := fakeDaemon(t, "exec "+os.Args[0]+" -test.run=^TestHelperDaemon$")
	if _, err := d.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pid, err := d.Revive(context.Background(), bin); pid != 0 || err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("Revive after stop: pid %d, %v; want none started", pid, err)
	}
}

func TestReviveTriesAFailingStartOnce(t *testing.T) {
	longRevive(t)
	d, bin := fakeDaemon(t, "echo broken >&2; exit 1")
	if _, err := d.Revive(context.Background(), bin); err == nil {
		t.Fatal("Revive with a daemon that exits at once: no error")
	}
	if pid, err := d.Revive(context.Background(), bin); pid != 0 || err != nil {
		t.Errorf("second Revive: pid %d, %v; want it not tried again yet", pid, err)
	}
}

// TestReviveStartsOneDaemonForManyAsking: the hooks a SIGKILL fires all ask at once.
func TestReviveStartsOneDaemonForManyAsking(t *testing.T) {
	longRevive(t)
	d, _ := fakeDaemon(t, "exit 1")
	if err := d.Dir.Create(); err != nil {
		t.Fatal(err)
	}
	claims := make(chan bool, 8)
	for range 8 {
		go func() {
			ok, _ := claim(d.Dir.Revived())
			claims <- ok
		}()
	}
	won := 0
	for range 8 {
		if <-claims {
			won++
		}
	}
	if won != 1 {
		t.Errorf("%d of 8 claims won; want exactly 1", won)
	}
}

// TestAnotherUsersRuntimeIsNotBelieved: another user made the runtime directory (beside
// a socket in a shared directory, -S /tmp/x) and runs a stand-in daemon there, with its
// lock, snapshot and sockets. No front end believes or asks it, and stop signals nothing.
func TestAnotherUsersRuntimeIsNotBelieved(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a directory to another user needs root")
	}
	d, bin := fakeDaemon(t, "exec "+os.Args[0]+" -test.run=^TestHelperDaemon$")
	ctx := context.Background()
	pid, err := d.Start(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := os.Chown(d.Dir.Runtime, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	refused := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), d.Dir.Runtime+" belongs to uid 65534") {
			t.Errorf("%s in a directory of uid 65534: %v, want a refusal naming it", what, err)
		}
	}
	_, err = d.Snapshot()
	refused("Snapshot", err)
	_, err = d.Workers()
	refused("Workers", err)
	_, err = d.History(ctx, "", 1)
	refused("History", err)
	refused("Tell", d.Tell(hooks.Event{Name: "x"}))
	if got := d.PID(); got != 0 {
		t.Errorf("PID = %d, want 0: the lock there is not our daemon's", got)
	}
	_, err = d.Stop(ctx)
	refused("Stop", err)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("Stop signalled the process holding a lock not ours: %v", err)
	}
}
