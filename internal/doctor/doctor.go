// Package doctor is `paneherd doctor`: it checks, one line each, what paneherd needs on one
// tmux server (tmux itself, the daemon, the plugin, the notification path, packs, agent
// hooks, the database) and says what to do about anything wrong. It only looks: it starts
// no daemon, writes no file and changes no tmux option, and every tmux call and question
// to the daemon has a deadline, so a hung server or daemon is reported, not waited on.
package doctor

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Status is how a check came out.
type Status string

// A check is ok, or a warning (worth knowing, nothing broken: exit 0), or a failure
// (something needs fixing: exit 1).
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
)

// Check is one line of the report.
type Check struct {
	Status Status `json:"status"`
	Name   string `json:"name"`
	Found  string `json:"found"`
	Fix    string `json:"fix,omitempty"` // what to do, for warn and fail
}

// Report is every check, in order; OK is false when one failed.
type Report struct {
	OK     bool    `json:"ok"`
	Checks []Check `json:"checks"`
}

// Failed is how many checks failed.
func (r Report) Failed() int {
	n := 0
	for _, c := range r.Checks {
		if c.Status == Fail {
			n++
		}
	}
	return n
}

// WriteText writes one line per check: status, name, what was found and what to do.
func (r Report) WriteText(w io.Writer) error {
	for _, c := range r.Checks {
		line := fmt.Sprintf("%-5s %-12s %s", c.Status, c.Name, c.Found)
		if c.Fix != "" {
			line += ": " + c.Fix
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// limit bounds each tmux call and each question to the daemon: both answer in
// milliseconds when well, so this only ever ends a hung one.
const limit = 5 * time.Second

// Doctor examines paneherd's setup for one tmux server.
type Doctor struct {
	Server tmux.Server
	// Getenv gives HOME and the XDG directories (the daemon's files, user packs, the
	// agents' settings) and DISPLAY and WAYLAND_DISPLAY.
	Getenv func(string) string
	Binary string // this paneherd's absolute path, which the plugin's hooks and bar run
	// Version is this paneherd's: a daemon of another one runs code that is not this.
	Version string
	UID     int
	// GOOS is the platform whose notification path is checked, "" being this one's.
	GOOS string
}

// Run runs every check. Those that ask the tmux server are left out when it does not
// run: the tmux line says so.
func (d Doctor) Run(ctx context.Context) Report {
	d.Server.Timeout = limit
	tmuxCheck, running := d.checkTmux(ctx)
	checks := []Check{tmuxCheck}
	values, optionChecks := options.Defaults(), []Check(nil)
	if running {
		values, optionChecks = d.checkOptions(ctx)
	}
	daemonChecks, about := d.checkDaemon(ctx, values, running)
	checks = append(checks, daemonChecks...)
	checks = append(checks, d.checkHosts(values)...)
	if running {
		checks = append(checks, optionChecks...)
		checks = append(checks, d.checkPolicy(values))
		checks = append(checks, d.checkPlugin(ctx, values)...)
	}
	checks = append(checks, d.checkNotify(ctx, values, running, about)...)
	packChecks, set := d.checkPacks()
	checks = append(checks, packChecks...)
	checks = append(checks, d.checkAgentVersions(set)...)
	checks = append(checks, d.checkAgentHooks()...)
	return newReport(checks)
}

func newReport(checks []Check) Report {
	r := Report{Checks: checks}
	r.OK = r.Failed() == 0
	return r
}

func ok(name, found string) Check { return Check{Status: OK, Name: name, Found: found} }

func warn(name, found, fix string) Check {
	return Check{Status: Warn, Name: name, Found: found, Fix: fix}
}

func fail(name, found, fix string) Check {
	return Check{Status: Fail, Name: name, Found: found, Fix: fix}
}
