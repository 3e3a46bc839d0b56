package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// scenario is one benchmark setup.
type scenario struct {
	name      string
	panes     int // cycling through the schedule: a change every 2-3 s
	idle      int // one READY screen for ever
	busy      int // one animated BUSY screen for ever
	streaming int // printing ~30 KB/s
	sessions  int
	slow      int           // cycling through the realistic schedule: a change about once a minute
	steady    int           // cycling through a change every 6-8 s
	window    time.Duration // how long each run measures; 0: the -window flag's
	agents    bool          // only Claude Code and Codex: the agents the peer knows
}

var scenarios = []scenario{
	{name: "50 panes, 5 streaming", panes: 45, streaming: 5, sessions: 5},
	{name: "50 idle panes", idle: 50, sessions: 5},
	{name: "200 panes", panes: 190, streaming: 10, sessions: 10},
	{name: "50 panes, 16 busy, 5 streaming, no changes", idle: 29, busy: 16, streaming: 5, sessions: 5},
	{name: "realistic: 50 panes changing about once a minute, 2 streaming", slow: 48, streaming: 2, sessions: 5, window: time.Minute},
	{name: "issue 19: 45 Claude Code and Codex panes changing every 6-8 s, 5 streaming", steady: 45, streaming: 5, sessions: 5, window: 30 * time.Second, agents: true},
}

// observers are the watchers measured side by side: paneherd's control-mode observer (and
// its polling one with -poll), the peer when -peer names its source, and the floors with
// -floor (floor.go).
var observers = []string{"control"}

// packsCycled are the packs whose demo screens the players show (-redraw screen or
// lines); with -redraw agents they play the recorded agents (recordedAgents) instead.
var packsCycled = []string{"claude", "codex", "gemini", "shell"}

type harness struct {
	paneherd, self string
	peer           string // the peer's binary ("": not measured)
	profile        string // write the daemon's CPU profiles to PROFILE.poll, PROFILE.control
	runs           int
	window         time.Duration
	quick          bool   // every scenario measured for window, its own length or not
	redraw         string // how the players draw (redrawEnv)
	doc            *benchDoc
}

// measurement is one run's figures.
type measurement struct {
	latency    map[string][]time.Duration // target state -> samples
	agreement  agreement                  // the reported state against the true one
	ownCPU     float64                    // % of one core: the watcher's own process
	clientsCPU float64                    // % of one core: the tmux clients it ran
	tmuxCPU    float64                    // % of one core: the server's extra work
	rssMB      float64
	reports    bool       // it writes paneherd's snapshot: latency and agreement are measured
	work       workCounts // what paneherd made tmux and the disk do, per second
}

// watcherCPU is the watcher's process tree: itself and its tmux clients.
func (m measurement) watcherCPU() float64 { return m.ownCPU + m.clientsCPU }

func (h harness) scenario(ctx context.Context, sc scenario) error {
	if sc.window == 0 || h.quick {
		sc.window = h.window
	}
	fmt.Printf("\n== %s (%d runs of %s each)\n", sc.name, h.runs, sc.window)
	results := map[string][]measurement{}
	for r := 0; r < h.runs; r++ {
		for _, obs := range observers {
			m, err := h.once(ctx, sc, obs)
			if err != nil {
				return err
			}
			results[obs] = append(results[obs], m)
		}
	}
	report(results)
	h.doc.add(sc, h.runs, results)
	return nil
}

// world is one private tmux server with its players.
type world struct {
	server  tmux.Server
	dir     string
	env     []string
	logs    map[string]string        // pane id -> player log
	streams []string                 // the streaming panes' ids
	settle  map[string]time.Duration // pane id -> its pack's settle time
	// afterWork: pane id -> its pack's settle_after_work (0: none), READY's settle after
	// a busy screen or a dialog.
	afterWork map[string]time.Duration
	// ruleSettle: pane id -> its pack's READY rules that have a settle time of their own
	// (packs.Rule.Settle) -> that time.
	ruleSettle map[string]map[string]time.Duration
}

func (h harness) start(ctx context.Context, sc scenario) (*world, error) {
	dir, err := os.MkdirTemp("/tmp", "phb")
	if err != nil {
		return nil, err
	}
	w := &world{dir: dir, logs: map[string]string{}, settle: map[string]time.Duration{}, afterWork: map[string]time.Duration{},
		ruleSettle: map[string]map[string]time.Duration{}}
	w.env = append(os.Environ(), "TMUX_TMPDIR="+dir, "HOME="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), redrawEnv+"="+h.redraw)
	w.server = tmux.Server{Socket: filepath.Join(dir, "tmux.sock")}
	kinds := []string{}
	for i := 0; i < sc.panes; i++ {
		kinds = append(kinds, "cycle")
	}
	for i := 0; i < sc.idle; i++ {
		kinds = append(kinds, "idle")
	}
	for i := 0; i < sc.busy; i++ {
		kinds = append(kinds, "busy")
	}
	for i := 0; i < sc.slow; i++ {
		kinds = append(kinds, "slow")
	}
	for i := 0; i < sc.steady; i++ {
		kinds = append(kinds, "steady")
	}
	for i := 0; i < sc.streaming; i++ {
		kinds = append(kinds, "stream")
	}
	cycled := packsCycled
	if h.redraw == "agents" {
		cycled = recordedAgents
	}
	if sc.agents {
		cycled = []string{"claude", "codex"}
	}
	for i, kind := range kinds {
		if err := w.addPane(ctx, h.self, i, kind, sc.sessions, cycled); err != nil {
			w.stop()
			return nil, err
		}
	}
	return w, nil
}

func (w *world) addPane(ctx context.Context, self string, i int, kind string, sessions int, cycled []string) error {
	pack := cycled[i%len(cycled)]
	if kind == "stream" {
		pack = "shell"
	}
	log := filepath.Join(w.dir, fmt.Sprintf("p%d.log", i))
	// The player runs under the pane's shell, as an agent's CLI does: a child of the pane's
	// process, its pack in its command line (the peer finds a Claude Code or Codex pane that
	// way, and then reads its screen), in a process group of its own in front of the
	// terminal (set -m: job control, as an interactive shell runs a command).
	cmd := fmt.Sprintf("set -m; %s play %s %s %s %d; exit", tmux.ShellWord(self), log, pack, kind, i)
	session := fmt.Sprintf("s%d", i%sessions)
	args := []string{"new-window", "-d", "-t", session + ":", "-P", "-F", "#{pane_id}", cmd}
	if i < sessions {
		args = []string{"new-session", "-d", "-s", session, "-x", "120", "-y", "40", "-P", "-F", "#{pane_id}", cmd}
	}
	c := exec.CommandContext(ctx, "tmux", w.server.Args(args...)...)
	c.Env = w.env
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("tmux %v: %w", args[0], err)
	}
	id := strings.TrimSpace(string(out))
	w.logs[id] = log
	if kind == "stream" {
		w.streams = append(w.streams, id)
	}
	if pk, err := builtin.Get(pack); err == nil {
		w.settle[id], w.afterWork[id] = pk.Settle.Duration, pk.SettleAfterWork.Duration
		w.ruleSettle[id] = map[string]time.Duration{}
		for _, r := range pk.Rules {
			if r.Settle.Duration > 0 {
				w.ruleSettle[id][r.Name] = r.Settle.Duration
			}
		}
	}
	_, err = w.server.Run(ctx, nil, "set-option", "-p", "-t", id, "@paneherd-pack", pack)
	return err
}

func (w *world) stop() {
	pid := w.serverPID(context.Background())
	if _, err := w.server.Run(context.Background(), nil, "kill-server"); err != nil {
		fmt.Fprintln(os.Stderr, "paneherd-bench: kill-server:", err)
	}
	// A server left behind would run its panes on through the next measurements.
	for end := time.Now().Add(3 * time.Second); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			fmt.Fprintln(os.Stderr, "paneherd-bench: tmux server", pid, "did not exit; killing it")
			syscall.Kill(pid, syscall.SIGKILL)
			break
		}
	}
	os.RemoveAll(w.dir)
}

// alive reports whether a process runs: it exists and is not a zombie (a daemonised tmux
// server's parent may never reap it).
func alive(pid int) bool {
	f := statFields(pid)
	return pid > 0 && len(f) > 0 && f[0] != "Z"
}

func (w *world) serverPID(ctx context.Context) int {
	out, _ := w.server.Run(ctx, nil, "display-message", "-p", "#{pid}")
	pid, _ := strconv.Atoi(strings.TrimSpace(out))
	return pid
}

// once runs the scenario with one watcher: baseline, watcher, measurement, baseline
// again. The server's own work drifts as the players change what they draw (how many
// animate at once): its extra work is counted against the mean of the baselines before
// and after the watcher, not the one before only, which lets the same binary's figure
// spread widely (docs/performance.md gives the spread).
func (h harness) once(ctx context.Context, sc scenario, observer string) (measurement, error) {
	w, err := h.start(ctx, sc)
	if err != nil {
		return measurement{}, err
	}
	defer w.stop()
	tmuxPID := w.serverPID(ctx)
	sleep(ctx, 2*time.Second) // players settle
	baseline := func() float64 {
		base0 := cpuOf(tmuxPID)
		sleep(ctx, sc.window/2)
		return perSecond(cpuOf(tmuxPID)-base0, sc.window/2)
	}
	before := baseline()

	watcher, snapshot, err := h.startWatcher(ctx, w, observer)
	if err != nil {
		return measurement{}, err
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			watcher.Process.Signal(syscall.SIGTERM)
			watcher.Wait()
		}
	}
	defer stop()
	sleep(ctx, 3*time.Second) // first looks, settling
	pid := watcher.Process.Pid
	start := time.Now()
	var work0 workCounts
	if snapshot != "" {
		work0 = h.readWork(ctx, w)
	}
	own0, kids0, t0 := cpuOf(pid), childrenCPU(pid), cpuOf(tmuxPID)
	var seen map[string][]observation
	if snapshot != "" {
		seen = watchSnapshot(ctx, snapshot, sc.window)
	} else {
		sleep(ctx, sc.window)
	}
	end := time.Now()
	if !alive(pid) { // its CPU would read as nothing
		return measurement{}, fmt.Errorf("%s exited during the run", observer)
	}
	own1, kids1, t1 := cpuOf(pid), childrenCPU(pid), cpuOf(tmuxPID)
	m := measurement{
		ownCPU:     perSecond(own1-own0, end.Sub(start)),
		clientsCPU: perSecond(kids1-kids0, end.Sub(start)),
		tmuxCPU:    perSecond(t1-t0, end.Sub(start)),
		rssMB:      rssOf(pid),
		reports:    snapshot != "",
	}
	if m.reports {
		m.work = rates(work0, h.readWork(ctx, w), end.Sub(start))
		m.latency = latencies(w, seen, start)
		m.agreement = measureAgreement(w, seen, start, end)
	}
	stop()
	sleep(ctx, time.Second) // its clients detach
	m.tmuxCPU -= (before + baseline()) / 2
	return m, nil
}

// startWatcher starts paneherd with the observer, or the peer, on the world's server; it
// returns the process and the snapshot paneherd writes ("" for the peer).
func (h harness) startWatcher(ctx context.Context, w *world, observer string) (*exec.Cmd, string, error) {
	if observer == peerName {
		c := w.peerCommand(ctx, h.peer)
		return c, "", c.Start()
	}
	if slices.Contains(floorKinds, observer) {
		c := w.floorCommand(ctx, h.self, observer)
		return c, "", c.Start()
	}
	w.server.Run(ctx, nil, "set-option", "-g", "@paneherd-observer", observer)
	daemon := exec.CommandContext(ctx, h.paneherd, "-S", w.server.Socket, "watch")
	daemon.Env = w.env
	if h.profile != "" {
		daemon.Env = append(daemon.Env, "PANEHERD_CPUPROFILE="+h.profile+"."+observer)
	}
	return daemon, w.files().Snapshot(), daemon.Start()
}

// observation is a pane's state as the snapshot said at a moment, and the rule that set
// it ("": a player's log, which knows no rules).
type observation struct {
	at    time.Time
	state string
	rule  string
}

// watchSnapshot reads the snapshot every 10 ms for d and records each pane's states.
func watchSnapshot(ctx context.Context, path string, d time.Duration) map[string][]observation {
	seen := map[string][]observation{}
	last := map[string]string{}
	for end := time.Now().Add(d); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(10 * time.Millisecond) {
		snap, err := wire.ReadSnapshot(path)
		if err != nil {
			continue
		}
		now := time.Now()
		for _, p := range snap.Panes {
			if last[p.ID] != p.State {
				last[p.ID] = p.State
				seen[p.ID] = append(seen[p.ID], observation{now, p.State, p.Rule})
			}
		}
	}
	return seen
}

// latencies pairs each screen change a player logged during the window with the first
// time the snapshot showed that pane in the matching state afterwards. READY is also
// reported past its settle time ("READY-settled", readySettle): READY may only show once
// the screen has held still that long, and the target is how soon after that it shows.
// Which settle applies depends on the rule that reads the READY screen: the one shown.
func latencies(w *world, seen map[string][]observation, start time.Time) map[string][]time.Duration {
	out := map[string][]time.Duration{}
	for pane, log := range w.logs {
		prev := ""
		for _, ch := range readChanges(log) {
			from := prev
			prev = ch.state
			if ch.at.Before(start) {
				continue
			}
			for _, ob := range seen[pane] {
				if !ob.at.Before(ch.at) && ob.state == ch.state {
					out[ch.state] = append(out[ch.state], ob.at.Sub(ch.at))
					if ch.state == "READY" {
						out[readySettled] = append(out[readySettled], ob.at.Sub(ch.at)-w.readySettle(pane, from, ob.rule))
					}
					break
				}
			}
		}
	}
	return out
}

// readySettle is how long the pane's READY screen, read by rule, must hold still after
// one in state from, as the tracker judges it: the rule's own settle time, or else its
// pack's; the pack's settle_after_work instead when shorter, after a busy screen or a
// dialog (the players draw the packs' own screens).
func (w *world) readySettle(pane, from, rule string) time.Duration {
	settle, after := w.settle[pane], w.afterWork[pane]
	if own := w.ruleSettle[pane][rule]; own > 0 {
		settle = own
	}
	if (from == "BUSY" || from == "NEEDS_CONFIRMATION") && after > 0 && after < settle {
		return after
	}
	return settle
}

const readySettled = "READY-settled"

// builtin is the packs the players' screens belong to, for their settle times.
var builtin = packs.Load("")

func readChanges(path string) []observation {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []observation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var ns int64
		var st string
		if _, err := fmt.Sscan(sc.Text(), &ns, &st); err == nil {
			out = append(out, observation{at: time.Unix(0, ns), state: st})
		}
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}
