package packs

import (
	"strings"

	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/screen"
)

// Process is what detection needs to know of one process in a pane.
type Process struct {
	Name string   // comm: "node", "bash"
	Args []string // argv
}

// ProcessesOf is what detection needs of a pane's processes (proc.Descendants), in
// their order.
func ProcessesOf(tree []proc.Process) []Process {
	out := make([]Process, len(tree))
	for i, p := range tree {
		out[i] = Process{Name: p.Name, Args: p.Args}
	}
	return out
}

// ForProcesses picks the pack for a pane from its foreground command and the processes
// under the pane (the pane's own process first). Among packs with a matching process the
// highest Detect.Priority wins, then the process nearest the pane. It returns nil when no
// pack recognises any process.
func (s *Set) ForProcesses(foreground string, procs []Process) *Pack {
	var best *Pack
	consider := func(p *Pack) {
		if best == nil || p.Detect.Priority > best.Detect.Priority {
			best = p
		}
	}
	for _, p := range s.All() {
		if p.HasCommand(foreground) {
			consider(p)
		}
	}
	for _, pr := range procs {
		for _, p := range s.All() {
			if p.Recognises(pr) {
				consider(p)
			}
		}
	}
	return best
}

// empty reports whether the pack gives no way to recognise its CLI.
func (d Detect) empty() bool {
	return len(d.Commands) == 0 && len(d.Args) == 0 && len(d.Screen) == 0
}

// HasCommand reports whether the pack claims a process of that name.
func (p *Pack) HasCommand(name string) bool {
	for _, c := range p.Detect.Commands {
		if c == name {
			return true
		}
	}
	return false
}

// Recognises reports whether the pack claims the process, by its name or command line.
func (p *Pack) Recognises(pr Process) bool {
	if p.HasCommand(pr.Name) {
		return true
	}
	return len(p.Detect.Args) > 0 && p.Detect.Args.find(strings.Join(pr.Args, " ")) != nil
}

// ForScreen picks the pack whose screen signatures match the most lines' worth of
// evidence; ties go to the higher priority. It returns nil when no signature matches.
func (s *Set) ForScreen(sc screen.Screen) *Pack {
	var best *Pack
	bestScore := 0
	for _, p := range s.All() {
		score := p.screenScore(sc)
		if score > bestScore || (score == bestScore && score > 0 && p.Detect.Priority > best.Detect.Priority) {
			best, bestScore = p, score
		}
	}
	return best
}

// screenScore counts the pack's signatures found anywhere on the screen.
func (p *Pack) screenScore(sc screen.Screen) int {
	score := 0
	for i := range p.Detect.Screen {
		for _, l := range sc.Lines {
			if p.Detect.Screen[i].MatchString(l.Text) {
				score++
				break
			}
		}
	}
	return score
}
