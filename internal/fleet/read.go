package fleet

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/statusline"
)

// Limits on what a host may send: its lines are read into memory.
const (
	maxLine  = 8 << 20 // a snapshot of thousands of panes fits
	maxPanes = 10_000
	maxNoise = 1000 // lines before the first protocol line (a remote shell's rc files)
	maxText  = 512  // characters kept of each text of a pane's record
)

// The ways a stream ends that no error of the host's says.
var (
	errEnded       = errors.New("its paneherd ended the stream")
	errNoStream    = fmt.Errorf("no paneherd stream: over %d lines of something else came first", maxNoise)
	errNoFirstLine = errors.New("its paneherd said nothing in time")
	errSilent      = errors.New("its paneherd went silent")
)

// noFollow is why a host whose paneherd has no follow command is incompatible.
const noFollow = "paneherd too old (no follow)"

// readLines hands lines the stream's lines, until it ends or a line is too long, and
// then closes lines.
func readLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		lines <- sc.Text()
	}
}

// firstLine is a stream's first protocol line.
type firstLine struct {
	Protocol int
	Version  string // cleaned, cut short: it is shown
	line     wire.FollowLine
}

// parseFirst reads a line that may be the first protocol line: a JSON object of type
// snapshot with a protocol. Anything else is not (noise before it). The version and the
// protocol are read before the rest, so another protocol's line is still known as one.
func parseFirst(text string) (firstLine, bool) {
	var head struct {
		Type     string `json:"type"`
		Protocol int    `json:"protocol"`
		Version  string `json:"version"`
	}
	if json.Unmarshal([]byte(text), &head) != nil || head.Type != wire.FollowSnapshot || head.Protocol < 1 {
		return firstLine{}, false
	}
	first := firstLine{Protocol: head.Protocol, Version: statusline.Clip(statusline.Clean(head.Version), 24)}
	if head.Protocol >= wire.FollowOldest && head.Protocol <= wire.FollowProtocol {
		line, err := parseLine(text)
		if err != nil {
			return firstLine{}, false
		}
		first.line = line
	}
	return first, true
}

// incompatibleError: the host's paneherd speaks a protocol this one does not read.
type incompatibleError struct{ why string }

func (e *incompatibleError) Error() string { return e.why }

// compatible says whether this paneherd reads first's protocol, and which side is too
// old when it does not ("paneherd 0.3 too old").
func compatible(first firstLine) error {
	version := "paneherd " + first.Version
	if first.Version == "" {
		version = "paneherd"
	}
	switch {
	case first.Protocol < wire.FollowOldest:
		return &incompatibleError{version + " too old"}
	case first.Protocol > wire.FollowProtocol:
		return &incompatibleError{version + " too new"}
	}
	return nil
}

// beat is the heartbeat the first line announces, kept within reason: a host must not
// make the fleet check it a thousand times a second, nor never.
func (f firstLine) beat() time.Duration {
	return min(max(f.line.Heartbeat(), 50*time.Millisecond), time.Minute)
}

// parseLine reads a protocol line; one that is not valid JSON of a known type, with
// panes a pane record can be, ends the stream: it is never shown.
func parseLine(text string) (wire.FollowLine, error) {
	var line wire.FollowLine
	if err := json.Unmarshal([]byte(text), &line); err != nil {
		return line, errors.New("its paneherd sent a line that is not the protocol's")
	}
	switch line.Type {
	case wire.FollowSnapshot, wire.FollowChange, wire.FollowHeartbeat:
	default:
		return line, errors.New("its paneherd sent a line of no known type")
	}
	if len(line.Panes) > maxPanes {
		return line, fmt.Errorf("its paneherd sent over %d panes", maxPanes)
	}
	for i, p := range line.Panes {
		if _, err := state.Parse(p.State); err != nil || !isPaneID(p.ID) {
			return line, errors.New("its paneherd sent a pane record that is not one")
		}
		line.Panes[i] = cleaned(p)
	}
	return line, nil
}

// cleaned is a host's pane record with its texts made fit to show, as the watcher makes
// this server's (statusline.Clean), and cut short: they are printed to terminals and
// drawn in the bar as they are.
func cleaned(p wire.Pane) wire.Pane {
	for _, text := range []*string{&p.Session, &p.Window, &p.Name, &p.Pack, &p.Rule, &p.Witness,
		&p.Summary, &p.Command, &p.CWD, &p.Server, &p.Host} {
		*text = statusline.Clip(statusline.Clean(*text), maxText)
	}
	return p
}

// isPaneID says whether id is a tmux pane id, "%" and digits: it goes into the commands
// that reach the pane (HOST:%ID), so nothing else may pass.
func isPaneID(id string) bool {
	digits, ok := strings.CutPrefix(id, "%")
	if !ok || digits == "" || len(digits) > 18 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxWhy bounds a host's Why: remote.Explain's lines, which say what to do and name the
// ssh command to try, fit whole.
const maxWhy = 400

// explain is why a stream was lost, in a line: what wrote it said why it ended, else the
// stream's own error.
func explain(err, waitErr error) string {
	if waitErr != nil && (err == nil || errors.Is(err, errEnded) || errors.Is(err, errNoFirstLine)) {
		err = waitErr
	}
	if err == nil {
		err = errEnded
	}
	msg, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return statusline.Clip(statusline.Clean(msg), maxWhy)
}

// tooOld: the host's paneherd ended before its first line saying it has no follow
// command.
func tooOld(err, waitErr error) bool {
	return errors.Is(err, errEnded) && waitErr != nil && strings.Contains(waitErr.Error(), `unknown command "follow"`)
}
