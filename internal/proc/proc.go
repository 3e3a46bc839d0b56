// Package proc reads the Linux process table from /proc, so the watcher
// can tell which program runs under a pane's shell.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Process is one process as /proc shows it.
type Process struct {
	PID, PPID int
	Session   int      // the session id: its leader's pid, kept by orphans
	Start     uint64   // when it started, in clock ticks after boot: with PID, names this process and no later one
	Zombie    bool     // exited, not reaped yet by its parent
	Name      string   // comm: the executable's name, at most 15 bytes
	Args      []string // cmdline; nil for zombies and kernel threads
}

// Table is one snapshot of the process table, so a single /proc scan can
// serve every pane in a tick.
type Table struct {
	procs    map[int]Process
	children map[int][]int
}

// Scan reads every process from /proc. Processes that exit while the scan
// runs are left out.
func Scan() (Table, error) {
	return scanDir("/proc")
}

func scanDir(root string) (Table, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return Table{}, fmt.Errorf("proc: scan %s: %w", root, err)
	}
	t := Table{procs: make(map[int]Process), children: make(map[int][]int)}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProcess(filepath.Join(root, e.Name()), pid)
		if !ok {
			continue
		}
		t.procs[pid] = p
		t.children[p.PPID] = append(t.children[p.PPID], pid)
	}
	for _, kids := range t.children {
		slices.Sort(kids)
	}
	return t, nil
}

// readProcess reports false when the process vanished mid-read.
func readProcess(dir string, pid int) (Process, bool) {
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return Process{}, false
	}
	p, err := parseStat(string(stat))
	if err != nil {
		return Process{}, false
	}
	cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
	if err != nil {
		return Process{}, false
	}
	p.PID, p.Args = pid, parseCmdline(cmdline)
	return p, true
}

// parseStat reads comm, ppid, the session and the start time from /proc/<pid>/stat:
// "pid (comm) state ppid pgrp session …", the start time 22nd. comm may itself hold
// spaces and parentheses, so it runs to the last ')'.
func parseStat(stat string) (Process, error) {
	open := strings.IndexByte(stat, '(')
	end := strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Process{}, fmt.Errorf("proc: malformed stat %q", stat)
	}
	fields := strings.Fields(stat[end+1:]) // from the 3rd, the state
	if len(fields) < 20 {
		return Process{}, fmt.Errorf("proc: malformed stat %q", stat)
	}
	p := Process{Name: stat[open+1 : end], Zombie: fields[0] == "Z"}
	var err error
	if p.PPID, err = strconv.Atoi(fields[1]); err != nil {
		return Process{}, fmt.Errorf("proc: stat ppid: %w", err)
	}
	if p.Session, err = strconv.Atoi(fields[3]); err != nil {
		return Process{}, fmt.Errorf("proc: stat session: %w", err)
	}
	if p.Start, err = strconv.ParseUint(fields[19], 10, 64); err != nil {
		return Process{}, fmt.Errorf("proc: stat start time: %w", err)
	}
	return p, nil
}

// parseCmdline splits the NUL-separated argv. A process that rewrote its
// argv (setproctitle) may have one long argument; that is kept as is.
func parseCmdline(cmdline []byte) []string {
	cmdline = bytes.TrimSuffix(cmdline, []byte{0})
	if len(cmdline) == 0 {
		return nil
	}
	return strings.Split(string(cmdline), "\x00")
}

// Descendants returns root and every process below it, root first, then
// breadth first with siblings by pid; nil if root is not in the table.
func (t Table) Descendants(root int) []Process {
	if _, ok := t.procs[root]; !ok {
		return nil
	}
	var out []Process
	// A scan is not atomic: with pid reuse mid-scan the parent links can
	// form a loop, so each pid is visited once.
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		out = append(out, t.procs[pid])
		for _, child := range t.children[pid] {
			if !seen[child] {
				seen[child] = true
				queue = append(queue, child)
			}
		}
	}
	return out
}

// Descendants scans /proc once and returns root and the processes below
// it, as Table.Descendants does.
func Descendants(root int) ([]Process, error) {
	t, err := Scan()
	if err != nil {
		return nil, err
	}
	procs := t.Descendants(root)
	if procs == nil {
		return nil, fmt.Errorf("proc: descendants of %d: %w", root, ErrNoProcess)
	}
	return procs, nil
}
