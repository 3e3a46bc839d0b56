package watcher

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/paneherd/paneherd/internal/tmux"
)

// TestSummaryMaskedBeforeItIsKept: a shell running a command with a password on its
// command line reads BUSY with that line as its summary; the password reaches neither
// the log, nor the store (the pane and its transition), nor the snapshot.
func TestSummaryMaskedBeforeItIsKept(t *testing.T) {
	const password = "S3cretPass"
	w := newWatcher(t)
	var log bytes.Buffer
	w.Log = zerolog.New(&log)
	pane := tmux.Pane{ID: "%1", Session: "s", Window: "db", WindowPanes: 1, PID: 7, Command: "mysql"}
	step := stepper(t, w, pane)
	step(t0, "user@host:~$ mysql -uroot -p"+password+" app\n")
	w.Flush()

	panes, err := db(w).Panes()
	if err != nil || len(panes) != 1 || panes[0].State != "BUSY" || !strings.Contains(panes[0].Summary, "mysql -uroot -p…[masked password] app") {
		t.Fatalf("stored panes %+v (%v), want the BUSY shell with the password masked in its summary", panes, err)
	}
	hist, err := db(w).Transitions("%1", 0)
	if err != nil || len(hist) == 0 {
		t.Fatalf("history %+v, %v", hist, err)
	}
	snap, _ := os.ReadFile(w.Snapshot)
	for what, text := range map[string]string{"log": log.String(), "transition": hist[len(hist)-1].Summary, "snapshot": string(snap)} {
		if strings.Contains(text, password) || !strings.Contains(text, "masked password") {
			t.Errorf("%s not masked: %s", what, text)
		}
	}
}
