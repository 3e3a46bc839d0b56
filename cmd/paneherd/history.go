package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

var cmdHistory = command{
	name:    "history",
	summary: "what happened to a pane (or every pane): states, notifications, actions, worker events",
	usage:   "history [TARGET] [--limit 50] [--json]",
	about: `Shows what happened to a pane (or to every pane): its state transitions, with the rule
that fired; the notifications sent about it, with the backend that delivered them; the
actions on it (sends, approvals, nudges); and a managed worker's runtime events. TARGET
is a pane id (%3), a worker name or session:window.pane; a retired worker's name and a
closed pane's id still find theirs; HOST:TARGET, a pane on a host of @paneherd-hosts (its
daemon's history, through ssh). Asks the running daemon, which alone opens the database.`,
	flags: func(fs *flag.FlagSet) runFunc {
		var o historyOptions
		fs.IntVar(&o.limit, "limit", 50, "show the last `N` entries, 0 for all (default 50)")
		fs.BoolVar(&o.json, "json", false, `print {"entries":[{"at","pane_id","kind","detail"}]}`)
		return func(ctx context.Context, e *env, args []string) error { return runHistory(ctx, e, fs, &o, args) }
	},
}

type historyOptions struct {
	limit int
	json  bool
}

// historyEntry is one line of history: a transition or a notification.
type historyEntry struct {
	At     time.Time `json:"at"`
	PaneID string    `json:"pane_id"`
	Kind   string    `json:"kind"` // "state" or "notify"
	Detail string    `json:"detail"`
}

func runHistory(ctx context.Context, e *env, fs *flag.FlagSet, o *historyOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return usagef("history takes at most one TARGET")
	}
	if o.limit < 0 {
		return usagef("--limit %d: give a number of entries, 0 for all", o.limit)
	}
	target := ""
	if len(rest) == 1 {
		h, where, err := e.where(ctx, rest[0])
		if err != nil {
			return targetError(ctx, e, "", false, err)
		}
		if h != nil {
			return onHost(ctx, e, h, hostArgs(fs, nil, nil, where), nil)
		}
		target = rest[0]
	}
	d, err := e.daemon()
	if err != nil {
		return err
	}
	h, err := d.HistoryOf(ctx, target, o.limit)
	if err != nil {
		return targetError(ctx, e, "", false, err)
	}
	entries := mergeHistory(h, o.limit)
	if o.json {
		return json.NewEncoder(e.stdout).Encode(struct {
			Entries []historyEntry `json:"entries"`
		}{entries})
	}
	return writeHistory(e.stdout, entries)
}

// mergeHistory interleaves transitions, notifications, actions and managed workers'
// runtime events by time, newest limit last.
func mergeHistory(h wire.History, limit int) []historyEntry {
	entries := []historyEntry{}
	for _, t := range h.Transitions {
		entries = append(entries, historyEntry{t.At, t.PaneID, "state",
			fmt.Sprintf("%s -> %s (%s) %s", t.From, t.To, t.Rule, t.Summary)})
	}
	for _, n := range h.Notifications {
		detail := fmt.Sprintf("%s via %s: %s", n.Event, orNone(n.Backend), n.Title)
		if n.Error != "" {
			detail += " [" + n.Error + "]"
		}
		entries = append(entries, historyEntry{n.At, n.PaneID, "notify", detail})
	}
	for _, t := range h.Triggers {
		entries = append(entries, historyEntry{t.At, t.PaneID, t.Kind, triggerDetail(t)})
	}
	for _, ev := range h.Events {
		detail := ev.Worker + " " + ev.Kind
		if ev.Detail != "" {
			detail += ": " + ev.Detail
		}
		if len(ev.Lines) > 0 {
			detail += " | last lines: " + strings.Join(ev.Lines, " ⏎ ")
		}
		entries = append(entries, historyEntry{ev.At, ev.PaneID, "worker", detail})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].At.Before(entries[j].At) })
	if limit > 0 && len(entries) > limit {
		entries = entries[len(entries)-limit:]
	}
	return entries
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func writeHistory(w io.Writer, entries []historyEntry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tPANE\tKIND\tDETAIL")
	for _, en := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", en.At.Local().Format("2006-01-02 15:04:05"), en.PaneID, en.Kind,
			strings.ReplaceAll(en.Detail, "\n", " "))
	}
	return tw.Flush()
}

// triggerDetail words an audited action: its id and outcome, what was sent (its envelope,
// size and hash, never the text) or chosen, retries, and why it was forced.
func triggerDetail(t wire.Trigger) string {
	s := fmt.Sprintf("%s %s", t.ID, t.Outcome)
	if t.Kind == "send" && t.Envelope != "" {
		s += fmt.Sprintf(" (envelope %s, %d bytes, sha256 %.12s)", t.Envelope, t.Length, t.SHA256)
	} else if t.Kind == "send" {
		s += fmt.Sprintf(" (%d bytes, sha256 %.12s)", t.Length, t.SHA256)
	} else if t.Choice != "" {
		s += " (" + t.Choice + ")"
	}
	if t.Retries > 0 {
		s += fmt.Sprintf(", %d retries", t.Retries)
	}
	if t.Forced {
		s += ", forced: " + t.Reason
	}
	if t.Rule != "" {
		s += ", by rule " + t.Rule
	}
	if t.Detail != "" {
		s += ": " + t.Detail
	}
	return s
}
