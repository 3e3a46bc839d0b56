package proc

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"
	"syscall"
)

// Foreground is who has a pane's terminal, as the stat of the pane's own process says:
// the terminal's foreground process group (tpgid). An interactive shell leads a group of
// its own; a command it starts runs in another group, which the shell puts in front
// (tcsetpgrp) before the command runs and takes back when it ends, before it prints its
// prompt again. So the group in front says whether a shell waits for a command, whether
// or not the command prints. (A shell without job control, `sh -c 'a; b'`, runs its
// commands in its own group: nothing ever moves in front of it.)
type Foreground struct {
	PID   int    // the pane's own process
	Name  string // its comm
	Own   int    // its process group
	Group int    // the group in front of its terminal; 0 or less: it has no terminal
}

// Moved reports whether a process group other than the pane's own process's has the
// terminal: the pane's shell waits for a command it started.
func (f Foreground) Moved() bool { return f.Group > 0 && f.Group != f.Own }

// StatFile is a process's stat file held open: reading it again is one system call
// (pread from the start, which the kernel answers afresh), a fraction of the cost of
// opening it anew (docs/performance.md#small-costs). An open stat file stays its
// process's: once that exits, reads fail (ESRCH) even if another process gets its pid.
type StatFile struct {
	pid, fd int
}

// OpenStat opens the stat file of a process.
func OpenStat(pid int) (*StatFile, error) {
	return openStat("/proc", pid)
}

func openStat(root string, pid int) (*StatFile, error) {
	fd, err := syscall.Open(root+"/"+strconv.Itoa(pid)+"/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("proc: open stat of %d: %w", pid, err)
	}
	return &StatFile{pid: pid, fd: fd}, nil
}

// PID is the process the file describes.
func (s *StatFile) PID() int { return s.pid }

// Close closes the file.
func (s *StatFile) Close() error { return syscall.Close(s.fd) }

// Foreground reads who is in front of the process's terminal now.
func (s *StatFile) Foreground() (Foreground, error) {
	var buf [512]byte
	n, err := pread(s.fd, buf[:])
	if err != nil {
		return Foreground{}, fmt.Errorf("proc: foreground of %d: %w", s.pid, err)
	}
	return parseForeground(s.pid, buf[:n])
}

func pread(fd int, buf []byte) (int, error) {
	for {
		n, err := syscall.Pread(fd, buf, 0)
		if err != syscall.EINTR {
			return n, err
		}
	}
}

// parseForeground reads comm, pgrp and tpgid from a stat: "pid (comm) state ppid pgrp
// session tty_nr tpgid …". comm may hold spaces and parentheses: it runs to the last ')'.
func parseForeground(pid int, stat []byte) (Foreground, error) {
	open := bytes.IndexByte(stat, '(')
	end := bytes.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return Foreground{}, fmt.Errorf("proc: malformed stat %q", string(stat))
	}
	var field [6][]byte // state ppid pgrp session tty_nr tpgid
	rest := stat[end+1:]
	for i := range field {
		rest = bytes.TrimLeft(rest, " ")
		word, after, _ := bytes.Cut(rest, []byte{' '})
		field[i], rest = word, after
	}
	own, err1 := strconv.Atoi(string(field[2]))
	group, err2 := strconv.Atoi(string(field[5]))
	if err1 != nil || err2 != nil {
		return Foreground{}, fmt.Errorf("proc: malformed stat %q", string(stat))
	}
	return Foreground{PID: pid, Name: string(stat[open+1 : end]), Own: own, Group: group}, nil
}

// CommandName names a process the way tmux names a pane's foreground process
// (#{pane_current_command}): the first word of its argv[0], without a leading "exec " or
// "-", as a base name when it is a path. "" when it has no argv (a zombie leader of a
// group whose other members live on): tmux then falls back to the pane's own command.
func CommandName(pid int) (string, error) {
	var buf [4096]byte // argv[0] is all tmux reads
	n, err := readSmall("/proc/"+strconv.Itoa(pid)+"/cmdline", buf[:])
	if err != nil {
		return "", fmt.Errorf("proc: command of %d: %w", pid, err)
	}
	argv0, _, _ := bytes.Cut(buf[:n], []byte{0})
	return tmuxName(string(argv0)), nil
}

// tmuxName is tmux 3.3a's parse_window_name (names.c), which turns what osdep_get_name
// read from /proc/<pgrp>/cmdline into pane_current_command. Keeping to it byte for byte
// keeps the name the same whichever of the two read it, so a pane's record does not flip
// between them.
func tmuxName(in string) string {
	name := strings.TrimPrefix(in, `"`)
	if i := strings.IndexByte(name, '"'); i >= 0 {
		name = name[:i]
	}
	name = strings.TrimPrefix(name, "exec ")
	name = strings.TrimLeft(name, " -")
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i]
	}
	// Trailing bytes that are neither letters, digits nor punctuation go (C's isalnum and
	// ispunct: any byte over 127 counts as neither); the first byte always stays.
	for len(name) > 1 && !graphic(name[len(name)-1]) {
		name = name[:len(name)-1]
	}
	if strings.HasPrefix(name, "/") {
		name = path.Base(name)
	}
	return name
}

func graphic(b byte) bool { return b > ' ' && b < 0x7f }

// readSmall reads up to len(buf) bytes of a small /proc file into buf.
func readSmall(name string, buf []byte) (int, error) {
	fd, err := syscall.Open(name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}
