package tmux

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Pane is one pane as list-panes reports it.
type Pane struct {
	ID, SessionID, Session, WindowID string
	WindowIndex, PaneIndex           int
	Window                           string // window_name
	WindowPanes                      int    // number of panes in the window
	Command                          string // pane_current_command
	PID                              int    // pane_pid
	CWD                              string // pane_current_path
	Title                            string
	Dead                             bool
	// DeadStatus is a dead pane's exit status, or -1 when tmux does not
	// know it: the pane is alive, or pane_dead turned 1 before tmux reaped
	// the process, or tmux never records it (measured on 3.3a: 1 of 200
	// commands that exit at once, 4 of 30 `sleep 0.2; exit 3` in one run).
	DeadStatus                      int
	InMode                          bool // copy mode, view mode, …
	Width, Height, CursorX, CursorY int
	CursorShown                     bool   // cursor_flag: the program shows its cursor
	Active                          bool   // pane_active && window_active
	OptName                         string // pane user option @paneherd-name
	OptPack                         string // pane user option @paneherd-pack
	// OptRemote is the pane user option @paneherd-remote: the pane shows a pane of
	// another host (HOST:TARGET, through ssh), whose state that host's daemon tells.
	OptRemote string
}

// paneField pairs a format with where its value goes, so the format string
// and the parser cannot drift apart.
type paneField struct {
	format string
	set    func(p *Pane, v string) error
}

var paneFields = []paneField{
	text("#{pane_id}", func(p *Pane) *string { return &p.ID }),
	text("#{session_id}", func(p *Pane) *string { return &p.SessionID }),
	text("#{session_name}", func(p *Pane) *string { return &p.Session }),
	text("#{window_id}", func(p *Pane) *string { return &p.WindowID }),
	number("#{window_index}", func(p *Pane) *int { return &p.WindowIndex }),
	number("#{pane_index}", func(p *Pane) *int { return &p.PaneIndex }),
	text("#{window_name}", func(p *Pane) *string { return &p.Window }),
	number("#{window_panes}", func(p *Pane) *int { return &p.WindowPanes }),
	text("#{pane_current_command}", func(p *Pane) *string { return &p.Command }),
	number("#{pane_pid}", func(p *Pane) *int { return &p.PID }),
	text("#{pane_current_path}", func(p *Pane) *string { return &p.CWD }),
	text("#{pane_title}", func(p *Pane) *string { return &p.Title }),
	flag("#{pane_dead}", func(p *Pane) *bool { return &p.Dead }),
	numberOr(-1, "#{pane_dead_status}", func(p *Pane) *int { return &p.DeadStatus }),
	// pane_in_mode counts the modes stacked on the pane: "2" for run-shell output over
	// a copy mode.
	flag("#{?pane_in_mode,1,0}", func(p *Pane) *bool { return &p.InMode }),
	number("#{pane_width}", func(p *Pane) *int { return &p.Width }),
	number("#{pane_height}", func(p *Pane) *int { return &p.Height }),
	number("#{cursor_x}", func(p *Pane) *int { return &p.CursorX }),
	number("#{cursor_y}", func(p *Pane) *int { return &p.CursorY }),
	flag("#{cursor_flag}", func(p *Pane) *bool { return &p.CursorShown }),
	flag("#{&&:#{pane_active},#{window_active}}", func(p *Pane) *bool { return &p.Active }),
	text("#{@paneherd-name}", func(p *Pane) *string { return &p.OptName }),
	text("#{@paneherd-pack}", func(p *Pane) *string { return &p.OptPack }),
	text("#{@paneherd-remote}", func(p *Pane) *string { return &p.OptRemote }),
}

func text(format string, field func(*Pane) *string) paneField {
	return paneField{format, func(p *Pane, v string) error { *field(p) = v; return nil }}
}

func number(format string, field func(*Pane) *int) paneField {
	return numberOr(0, format, field)
}

// numberOr stores empty when tmux prints "" (it does for unknown values).
func numberOr(empty int, format string, field func(*Pane) *int) paneField {
	return paneField{format, func(p *Pane, v string) error {
		if v == "" {
			*field(p) = empty
			return nil
		}
		n, err := strconv.Atoi(v)
		*field(p) = n
		return err
	}}
}

func flag(format string, field func(*Pane) *bool) paneField {
	return paneField{format, func(p *Pane, v string) error { *field(p) = v == "1"; return nil }}
}

// ListPanes returns every pane of every session in one list-panes call.
// A window linked into several sessions is listed once per session by
// tmux; each pane is returned once, with the first session that shows it.
func (s Server) ListPanes(ctx context.Context) ([]Pane, error) {
	// tmux 3.3a stores window names set by new-window -n (and by programs)
	// with raw control characters, newline and tab included, and prints
	// them raw (only rename-window escapes them as \001, \t). Paths,
	// commands and user options can hold anything too, so no byte is a safe
	// separator: fields are split by a per-call random token instead.
	sep := "\x1f" + newNonce() + "\x1f"
	out, err := s.Run(ctx, nil, "list-panes", "-a", "-F", paneFormat(sep))
	if err != nil {
		return nil, err
	}
	return parsePanes(out, sep)
}

// paneFormat ends every record with sep so a record boundary is sep+"\n",
// which no field can contain.
func paneFormat(sep string) string {
	formats := make([]string, len(paneFields))
	for i, f := range paneFields {
		formats[i] = f.format
	}
	return strings.Join(formats, sep) + sep
}

func parsePanes(out, sep string) ([]Pane, error) {
	var panes []Pane
	seen := make(map[string]bool)
	for _, record := range strings.Split(out, sep+"\n") {
		if record == "" {
			continue
		}
		p, err := parsePane(record, sep)
		if err != nil {
			return nil, fmt.Errorf("tmux list-panes: %w", err)
		}
		if !seen[p.ID] {
			seen[p.ID] = true
			panes = append(panes, p)
		}
	}
	return panes, nil
}

func parsePane(record, sep string) (Pane, error) {
	values := strings.Split(record, sep)
	if len(values) == 1 && Sanitised(record, sep) {
		return Pane{}, ErrSanitised
	}
	if len(values) != len(paneFields) {
		return Pane{}, fmt.Errorf("record has %d fields, want %d: %q", len(values), len(paneFields), record)
	}
	var p Pane
	for i, f := range paneFields {
		if err := f.set(&p, values[i]); err != nil {
			return Pane{}, fmt.Errorf("field %s: %w", f.format, err)
		}
	}
	return p, nil
}

// ListCommand is the list-panes command ListPanes runs, for running it elsewhere (through
// a control client), and the parser of its output.
func ListCommand() ([]string, func(out string) ([]Pane, error)) {
	sep := "\x1f" + newNonce() + "\x1f"
	return []string{"list-panes", "-a", "-F", paneFormat(sep)}, func(out string) ([]Pane, error) {
		return parsePanes(out, sep)
	}
}
