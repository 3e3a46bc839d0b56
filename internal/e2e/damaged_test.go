package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// historyEntries runs `paneherd history --json` with args and returns its entries, or
// fails the test with what the command said.
func (r *rig) historyEntries(args ...string) []struct {
	At     time.Time `json:"at"`
	PaneID string    `json:"pane_id"`
	Kind   string    `json:"kind"`
} {
	r.t.Helper()
	out, errs, code := r.paneherd(append([]string{"history", "--json"}, args...)...)
	var h struct {
		Entries []struct {
			At     time.Time `json:"at"`
			PaneID string    `json:"pane_id"`
			Kind   string    `json:"kind"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(out), &h); code != 0 || err != nil {
		r.t.Fatalf("history %v: exit %d, %v: %s%s", args, code, err, out, errs)
	}
	return h.Entries
}

// TestDamagedHistoryRecordIsSkipped: a transition whose bytes changed on disk while no
// daemon ran is skipped by every history question, and doctor counts it.
func TestDamagedHistoryRecordIsSkipped(t *testing.T) {
	r := newRig(t)
	pane := r.tmux.NewSession("work", "env -i TERM=xterm-256color PS1='user@host:~$ ' bash --norc --noprofile")
	r.start()
	r.waitState(pane, "READY")
	r.tmux.Run("send-keys", "-t", pane, "sleep 1", "Enter")
	r.waitState(pane, "BUSY")
	r.waitState(pane, "READY")
	before := r.historyEntries("--limit", "0")
	if len(before) < 3 {
		t.Fatalf("history before = %+v; want at least 3 transitions", before)
	}
	r.stop()

	// The first transition's JSON no longer starts an object (every copy of it: bbolt
	// leaves older copies of a page in the file).
	dbs, _ := filepath.Glob(filepath.Join(r.home, "state", "paneherd", "*", "state.db"))
	if len(dbs) != 1 {
		t.Fatalf("databases: %v", dbs)
	}
	db, err := os.ReadFile(dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	at, _ := json.Marshal(before[0].At)
	record := []byte(`{"pane_id":"` + before[0].PaneID + `","at":` + string(at))
	if !bytes.Contains(db, record) {
		t.Fatalf("the first transition %s is not in the file", record)
	}
	spoilt := append([]byte{'!'}, record[1:]...)
	if err := os.WriteFile(dbs[0], bytes.ReplaceAll(db, record, spoilt), 0o600); err != nil {
		t.Fatal(err)
	}

	r.start()
	if after := r.historyEntries("--limit", "0"); len(after) < len(before)-1 {
		t.Errorf("history after = %d entries, want the %d sound ones of %d", len(after), len(before)-1, len(before))
	}
	r.historyEntries(pane)
	lines, _ := r.doctor()
	wantLine(t, lines, "database", "warn", "1 damaged record, which history skips")
}
