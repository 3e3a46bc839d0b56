// Package packs holds paneherd's per-CLI knowledge: how to recognise a CLI and how to read
// its screen. A pack is a TOML file; the builtin ones are embedded, a user file of the same
// name replaces a builtin whole, and a new name adds a pack.
package packs

import (
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/state"
)

// Shell is the pack of plain shells, and of every pane no other pack recognises: whatever
// is typed there runs.
const Shell = "shell"

// Pack is one CLI's knowledge, as decoded from TOML.
type Pack struct {
	Name        string   `toml:"name"`
	Description string   `toml:"description"`
	Settle      Duration `toml:"settle"` // how long a READY screen must stay unchanged before it counts
	// SettleAfterWork, when shorter, replaces Settle for an idle screen that follows one a
	// rule read as the agent at work, or a dialog: its work visibly ended. Settle stays for
	// every other idle screen, such as the prompt an agent clears as it takes it.
	SettleAfterWork Duration `toml:"settle_after_work"`
	Stall           Duration `toml:"stall"` // how long a BUSY screen may stay frozen before STALLED; 0 = never
	// Tested are the CLI's versions the pack was written and checked against ("2.1.197"):
	// `paneherd doctor` warns of a running agent of another version, whose screens the
	// pack may misread.
	Tested []string `toml:"tested"`
	Detect Detect   `toml:"detect"`
	Input  Input    `toml:"input"`
	Ignore Patterns `toml:"ignore"` // lines that say nothing about state (permanent footers)
	// Clock matches a clock the CLI draws (a status line's time); its first group is the
	// clock's text, else the whole match. It is looked for on the whole screen, ignored
	// lines included, and the lowest match counts. A clock that advances proves the CLI
	// alive: the tracker does not call it STALLED while it does (Result.Clock).
	Clock *Pattern `toml:"clock"`
	// Context says how full its context window is and how to tell (context.go).
	Context Context `toml:"context"`
	Rules   []Rule  `toml:"rules"`
	Actions Actions `toml:"actions"`
	// Launch says how `paneherd create` starts the CLI and how the supervisor restarts it.
	Launch Launch `toml:"launch"`

	// Source says where the pack came from: "builtin" or a file path.
	Source string `toml:"-"`

	memo *lineMemo // what its patterns said of lines seen before (memo.go)
	// readsTyped: some rule has UnlessTyped, so a view needs the box's typed text.
	readsTyped bool
}

// Detect says how to recognise the CLI running in a pane.
type Detect struct {
	// Commands are process names (pane_current_command or a process under the pane).
	Commands []string `toml:"commands"`
	// Args match a process's command line (argv joined by spaces); for CLIs that run
	// under an interpreter, like Claude Code and Gemini CLI under node.
	Args Patterns `toml:"args"`
	// Screen signatures, for when the process tells nothing (`classify --pack auto`, or a
	// CLI launched through a wrapper). Each one that matches scores a point.
	Screen Patterns `toml:"screen"`
	// Priority breaks ties when processes of several packs run in one pane: an agent
	// (say 10) runs shells of its own for tools, and must still win over the shell pack (0).
	Priority int `toml:"priority"`
}

// Input describes the CLI's input box, the line where a person types.
type Input struct {
	// Line matches the input line; its first group, if any, is the text in the box.
	Line *Pattern `toml:"line"`
	// Search is how many non-empty lines from the bottom may hold the input line.
	Search int `toml:"search"`
	// Placeholder matches box text that is a hint, not something typed.
	Placeholder Patterns `toml:"placeholder"`
}

// Rule assigns a state when its patterns match inside its region of the screen.
type Rule struct {
	Name    string    `toml:"name"`
	State   RuleState `toml:"state"`
	Match   Patterns  `toml:"match"`   // any of these, on one line of the region
	Require Patterns  `toml:"require"` // and each of these somewhere in the region
	Unless  Patterns  `toml:"unless"`  // the rule stays silent if any of these matches in the region
	Region  Region    `toml:"region"`  // where to look; default: the last 10 non-empty lines
	// UnlessBelow silences the rule when one of these matches a line of the region below
	// the line its match pattern matched: what came after makes that line history (a
	// finished turn after a spinner, the agent's answer after an error it quoted).
	UnlessBelow Patterns `toml:"unless_below"`
	// UnlessTyped silences the rule while the text typed into the input box (as
	// Pack.InputText reads it) matches one of these: a person at the box choosing a
	// command is answering what the screen shows.
	UnlessTyped Patterns `toml:"unless_typed"`
	// Since cuts the region to the lines below the lowest line it matches in or above the
	// region (say the last user prompt: "errors of the last turn only"); when that line is
	// above the region, or there is none, the region stays whole.
	Since *Pattern `toml:"since"`
	// Summary is what to report; default: the line that matched. It is looked for in the
	// region from the bottom up, then in the lines above the region (back to the since line,
	// if any), nearest first. A pattern with \n in it spans lines: it is matched against
	// those lines joined by newlines, and its last match counts.
	Summary *Pattern `toml:"summary"`
	Process *Pattern `toml:"process"` // only when the foreground process matches (ignored when unknown)
	NotProc *Pattern `toml:"not_process"`
	// Choices are what `paneherd approve` and `deny` may answer this dialog with:
	// "approve", "always", "deny". A dialog with none (a sign-in wait, a passphrase) needs
	// a person; paneherd presses nothing there.
	Choices []string `toml:"choices"`
	// Settle, on a READY rule, replaces the pack's settle time for the screens this rule
	// reads: an idle screen the CLI draws only once its turn is over (a "Worked for 7s"
	// line right above the box) needs no long wait to be believed. Absent: the pack's.
	Settle Duration `toml:"settle"`
	// Subjects say what kind of thing the dialog asks about and where it shows it (a
	// command, a path, a tool): the first whose pattern matches the dialog decides
	// (subject.go). A policy rule matches what they read.
	Subjects []Subject `toml:"subjects"`
	// Approve, Always and Deny override the pack's [actions] keys for this dialog.
	Approve []string `toml:"approve"`
	Always  []string `toml:"always"`
	Deny    []string `toml:"deny"`
}

// Actions say how to act on the CLI (used by send and approve).
type Actions struct {
	Approve     []string `toml:"approve"`      // tmux key names that accept a confirmation once
	Always      []string `toml:"always"`       // accept and do not ask again, where the CLI offers it
	Deny        []string `toml:"deny"`         // refuse
	Submit      []string `toml:"submit"`       // keys that submit a pasted prompt
	SubmitDelay Duration `toml:"submit_delay"` // pause between the paste and the submit keys
	Fallback    string   `toml:"fallback"`     // shell command run when a prompt is never acknowledged
	// Interrupt stops what the CLI does and makes it quit, pressed before a retired
	// worker's pane is killed.
	Interrupt []string `toml:"interrupt"`
	// Nudge is pressed at a STALLED worker (frozen, no dialog) to wake it; none: the
	// supervisor only looks again, then escalates.
	Nudge []string `toml:"nudge"`
}

// Launch is how the supervisor starts a worker of this CLI: shell command lines, run in
// the worker's directory by tmux (new-window, or split-window in place of its old pane).
type Launch struct {
	Command string `toml:"command"` // a fresh start
	// Resume continues the agent's last conversation in that directory (claude
	// --continue, codex resume --last); "": restarts start fresh.
	Resume string `toml:"resume"`
}

// Defaults for fields a pack leaves out.
const (
	DefaultSettle      = time.Second
	DefaultInputSearch = 8
	DefaultRegionLines = 10
	DefaultSubmitDelay = 150 * time.Millisecond
)

// RuleState is a state a rule may assign.
type RuleState struct{ state.State }

// UnmarshalText accepts only the states a rule may set.
func (s *RuleState) UnmarshalText(b []byte) error {
	st, err := state.ParseRuleState(string(b))
	s.State = st
	return err
}

// Duration is a time.Duration written as "1s", "500ms"; "0" disables.
type Duration struct{ time.Duration }

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	if string(b) == "0" {
		d.Duration = 0
		return nil
	}
	v, err := time.ParseDuration(string(b))
	if err == nil && v < 0 {
		return fmt.Errorf("duration %q is negative", b)
	}
	d.Duration = v
	return err
}

// MarshalText writes the duration back, for `packs show`.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// defaults fills what the TOML left out.
func (p *Pack) defaults() {
	if p.Settle.Duration == 0 {
		p.Settle.Duration = DefaultSettle
	}
	if p.Input.Search == 0 {
		p.Input.Search = DefaultInputSearch
	}
	if p.Actions.SubmitDelay.Duration == 0 {
		p.Actions.SubmitDelay.Duration = DefaultSubmitDelay
	}
	for i := range p.Rules {
		if p.Rules[i].Region.Kind == "" {
			p.Rules[i].Region = Region{Kind: RegionLast, Lines: DefaultRegionLines}
		}
		p.readsTyped = p.readsTyped || len(p.Rules[i].UnlessTyped) > 0
		p.Rules[i].prepareSubjects()
	}
}
