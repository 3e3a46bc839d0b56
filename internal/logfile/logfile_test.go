package logfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
)

func TestLevelChangesWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Debug().Msg("hidden")
	l.Info().Msg("shown")
	l.SetLevel("debug")
	l.Debug().Msg("now shown")
	if err := l.SetLevel("loud"); err == nil {
		t.Error("a bad level was accepted")
	}
	b, _ := os.ReadFile(path)
	got := string(b)
	if strings.Contains(got, "hidden") || !strings.Contains(got, `"shown"`) || !strings.Contains(got, "now shown") {
		t.Errorf("log:\n%s", got)
	}
}

// lines reads path's JSON lines, failing on one that is not whole.
func lines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: a line is not whole JSON: %q", path, line)
		}
		out = append(out, m)
	}
	return out
}

// TestRotatesWhileRunning writes three times the limit through one open log: the file is
// rotated as it goes, one old generation is kept, and no line is cut or lost across the
// last rotation.
func TestRotatesWhileRunning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	filler := strings.Repeat("x", 1000)
	n := 3 * maxSize / len(filler)
	for i := range n {
		l.Info().Int("n", i).Str("filler", filler).Msg("line")
	}
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatalf("after writing %d MB: %v", 3*maxSize>>20, err)
		}
		if fi.Size() > maxSize {
			t.Errorf("%s holds %d bytes, over the limit of %d", p, fi.Size(), maxSize)
		}
	}
	if _, err := os.Stat(path + ".2"); err == nil {
		t.Error("a second old generation was kept")
	}
	old, cur := lines(t, path+".1"), lines(t, path)
	if last, first := old[len(old)-1]["n"].(float64), cur[0]["n"].(float64); first != last+1 {
		t.Errorf("the rotation lost lines: %s.1 ends with line %v, %s starts with %v", path, last, path, first)
	}
	if last := cur[len(cur)-1]["n"].(float64); int(last) != n-1 {
		t.Errorf("the last line is %v, want %d", last, n-1)
	}
}

// TestRotatesAtOpen: a file already over the limit (a hook's process writing a line with
// no daemon) is moved aside before the first line.
func TestRotatesAtOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	if err := os.WriteFile(path, make([]byte, maxSize+1), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, "warn")
	if err != nil {
		t.Fatal(err)
	}
	l.Warn().Msg("after")
	l.Close()
	if got := lines(t, path); len(got) != 1 || got[0]["message"] != "after" {
		t.Errorf("log after open: %v", got)
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != maxSize+1 {
		t.Errorf("the old log was not kept as .1: %v", err)
	}
}

// TestRotationWhoseOpenFailsKeepsTheLog: the new file cannot be opened once (out of
// descriptors, say): the lines go on into the log at its own name, and the next
// rotation succeeds.
func TestRotationWhoseOpenFailsKeepsTheLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	r, err := openRotating(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.max = 100
	failed := false
	r.openFile = func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if !failed {
			failed = true
			return nil, syscall.EMFILE
		}
		return os.OpenFile(name, flag, perm)
	}
	line := []byte(strings.Repeat("x", 59) + "\n")
	write := func() {
		t.Helper()
		if _, err := r.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	write()
	write() // over the limit: its rotation fails to open the new file
	if !failed {
		t.Fatal("no rotation was tried")
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 2*int64(len(line)) {
		t.Fatalf("after a rotation that failed to open: %s is %v, %v; want both lines in it", path, fi, err)
	}
	write() // the next rotation
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(line)) {
		t.Errorf("after the next rotation: %s is %v, %v; want the last line alone", path, fi, err)
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != 2*int64(len(line)) {
		t.Errorf("after the next rotation: %s.1 is %v, %v; want the first two lines", path, fi, err)
	}
}

// TestRepeatedLineIsCounted: a flood of one line writes its first, then one line with the
// count when the interval ends, then starts over; another kind of the same message is
// written on its own; closing the log writes a count held.
func TestRepeatedLineIsCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	l.repeats.every = 200 * time.Millisecond
	const msg = "agent hook not understood"
	flood := func(n int, kind string) {
		for i := range n {
			l.Repeated(zerolog.WarnLevel, msg, kind).Int("n", i).Msg(msg)
		}
	}
	flood(1000, "payload is not JSON")
	flood(1, "unknown agent")
	deadline := time.Now().Add(10 * time.Second)
	for len(lines(t, path)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	flood(3, "payload is not JSON")
	l.Close()
	got := lines(t, path)
	const more = msg + " (payload is not JSON): %d more in 200ms, not written one by one"
	want := []struct {
		msg     string
		repeats float64
	}{{msg, 0}, {msg, 0}, {fmt.Sprintf(more, 999), 999}, {msg, 0}, {fmt.Sprintf(more, 2), 2}}
	if len(got) != len(want) {
		t.Fatalf("log has %d lines, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		r, _ := got[i]["repeats"].(float64)
		if got[i]["message"] != w.msg || r != w.repeats || got[i]["level"] != "warn" {
			t.Errorf("line %d: %v, want %q with repeats %v", i, got[i], w.msg, w.repeats)
		}
	}
}

// TestRepeatedKindsAreBounded: kinds that never repeat (a detail that varies left in the
// kind) are counted together beyond a few dozen, so the lines stay few.
func TestRepeatedKindsAreBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.log")
	l, err := Open(path, "info")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10_000 {
		l.Repeated(zerolog.WarnLevel, "bad", fmt.Sprint(i)).Msg("bad")
	}
	l.Close()
	got := lines(t, path)
	if len(got) != maxHeld+2 {
		t.Errorf("10,000 kinds wrote %d lines, want %d (the first of each kind held, of the other kinds, and their count)", len(got), maxHeld+2)
	}
	if last := got[len(got)-1]["message"]; !strings.Contains(fmt.Sprint(last), "bad (other kinds): 9967 more") {
		t.Errorf("last line %q", last)
	}
}
