package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startTree runs sh, which backgrounds `sleep 30` and then becomes
// `sleep 31`: a root with one child, both named sleep.
func startTree(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 30 & exec sleep 31")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start tree: %v", err)
	}
	t.Cleanup(func() {
		for _, p := range mustDescendants(t, cmd.Process.Pid) {
			_ = killPID(p.PID)
		}
		_ = cmd.Wait()
	})
	return cmd
}

func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func mustDescendants(t *testing.T, root int) []Process {
	t.Helper()
	procs, err := Descendants(root)
	if err != nil && !errors.Is(err, ErrNoProcess) {
		t.Fatalf("Descendants: %v", err)
	}
	return procs
}

func TestDescendantsRealTree(t *testing.T) {
	cmd := startTree(t)
	root := cmd.Process.Pid
	var procs []Process
	deadline := time.Now().Add(5 * time.Second)
	for {
		// Until both sh processes have exec'd, they are still named "sh"; in the middle of
		// an exec the new name can show before the new argv.
		procs = mustDescendants(t, root)
		if len(procs) == 2 && execd(procs[0]) && execd(procs[1]) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(procs) != 2 {
		t.Fatalf("got %+v, want root and one child", procs)
	}
	sid, err := unix.Getsid(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if procs[0].Start == 0 || procs[1].Start < procs[0].Start {
		t.Errorf("start times %d, %d: the child cannot have started before its parent", procs[0].Start, procs[1].Start)
	}
	want := []Process{
		{PID: root, PPID: os.Getpid(), Session: sid, Start: procs[0].Start, Name: "sleep", Args: []string{"sleep", "31"}},
		{PID: procs[1].PID, PPID: root, Session: sid, Start: procs[1].Start, Name: "sleep", Args: []string{"sleep", "30"}},
	}
	if !reflect.DeepEqual(procs, want) {
		t.Errorf("Descendants = %+v, want %+v", procs, want)
	}
}

func execd(p Process) bool { return p.Name == "sleep" && len(p.Args) == 2 }

func TestDescendantsMissingRoot(t *testing.T) {
	table, err := Scan()
	if err != nil {
		t.Fatal(err)
	}
	if procs := table.Descendants(-1); procs != nil {
		t.Errorf("Descendants(-1) = %+v", procs)
	}
	if _, err := Descendants(-1); !errors.Is(err, ErrNoProcess) {
		t.Errorf("err = %v, want ErrNoProcess", err)
	}
}

func TestScanSkipsVanishedAndOddEntries(t *testing.T) {
	root := t.TempDir()
	writeProc(t, root, "1", stat("1 (init) S 0 1 1", 1), "/sbin/init\x00")
	writeProc(t, root, "20", stat("20 (a) b (c)) S 1 20 20", 2000), "a\x00-x\x00\x00")
	writeProc(t, root, "21", stat("21 (zombie) Z 20 21 20", 2100), "")
	writeProc(t, root, "30", stat("30 (other) S 1 30 30", 3000), "other\x00")
	mkdir(t, filepath.Join(root, "22")) // vanished between readdir and read
	mkdir(t, filepath.Join(root, "self"))
	table, err := scanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []Process{
		{PID: 20, PPID: 1, Session: 20, Start: 2000, Name: "a) b (c)", Args: []string{"a", "-x", ""}},
		{PID: 21, PPID: 20, Session: 20, Start: 2100, Zombie: true, Name: "zombie"},
	}
	if got := table.Descendants(20); !reflect.DeepEqual(got, want) {
		t.Errorf("Descendants(20) = %+v, want %+v", got, want)
	}
	if got := table.Descendants(1); len(got) != 4 || got[1].PID != 20 || got[2].PID != 30 || got[3].PID != 21 {
		t.Errorf("Descendants(1) not breadth first by pid: %+v", got)
	}
}

func TestDescendantsSurvivesParentLoop(t *testing.T) {
	root := t.TempDir()
	writeProc(t, root, "50", stat("50 (a) S 100 50 50", 5000), "a\x00")
	writeProc(t, root, "100", stat("100 (b) S 50 100 100", 10000), "b\x00")
	table, err := scanDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Descendants(50); len(got) != 2 {
		t.Errorf("Descendants(50) = %+v, want each process once", got)
	}
}

func TestParseStatMalformed(t *testing.T) {
	for _, line := range []string{"", "1 init S 0", "1 (init) S", stat("1 (init) S x 1 1", 1), stat("1 (init) S 0 1 x", 1),
		"1 (init) S 0 1 1", stat("1 (init) S 0 1 1", -1), strings.TrimSuffix(stat("1 (init) S 0 1 1", 1), " 1 1000 100"), ")1 (x"} {
		if _, err := parseStat(line); err == nil {
			t.Errorf("parseStat(%q) accepted malformed input", line)
		}
	}
}

// stat is a whole /proc/<pid>/stat line: head, its first six fields, then the start
// time as the 22nd.
func stat(head string, start int) string {
	return head + " 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 " + strconv.Itoa(start) + " 1000 100"
}

func writeProc(t *testing.T, root, pid, stat, cmdline string) {
	t.Helper()
	dir := filepath.Join(root, pid)
	mkdir(t, dir)
	for name, body := range map[string]string{"stat": stat, "cmdline": cmdline} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}
