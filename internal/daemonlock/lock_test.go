package daemonlock

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestHelperHold is run as a child process: it takes the lock and waits for stdin to close.
func TestHelperHold(t *testing.T) {
	path := os.Getenv("DAEMONLOCK_HOLD")
	if path == "" {
		t.Skip("helper process only")
	}
	if _, err := Acquire(path); err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("locked\n")
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
	os.Exit(0)
}

func TestLockAcrossProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.lock")
	if got := Holder(path); got != 0 {
		t.Fatalf("Holder of a missing file = %d, want 0", got)
	}
	cmd := exec.Command(os.Args[0], "-test.run=TestHelperHold")
	cmd.Env = append(os.Environ(), "DAEMONLOCK_HOLD="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	buf := make([]byte, 7)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("child did not lock: %q %v", buf, err)
	}

	if got := Holder(path); got != cmd.Process.Pid {
		t.Errorf("Holder = %d, want child pid %d", got, cmd.Process.Pid)
	}
	_, err := Acquire(path)
	if !errors.Is(err, ErrHeld) {
		t.Fatalf("second Acquire: %v, want ErrHeld", err)
	}
	if want := strconv.Itoa(cmd.Process.Pid); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name pid %s", err, want)
	}

	stdin.Close()
	cmd.Wait()
	if got := Holder(path); got != 0 {
		t.Errorf("Holder after the child exited = %d, want 0", got)
	}
	l, err := Acquire(path)
	if err != nil {
		t.Fatalf("Acquire after the holder died: %v", err)
	}
	l.Release()
}
