package proc

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestExitedTellsWhenAProcessEnds(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := Exited(ctx, cmd.Process.Pid)
	select {
	case <-done:
		t.Fatal("said exited while it runs")
	default:
	}
	cmd.Process.Kill()
	cmd.Wait()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no word of the exit within 10 s")
	}
	select {
	case <-Exited(ctx, cmd.Process.Pid):
	case <-time.After(10 * time.Second):
		t.Fatal("a process that is gone is not said to have exited")
	}
}
