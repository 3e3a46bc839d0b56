package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/paneherd/paneherd/internal/controlmode"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/sshtest"
	"github.com/paneherd/paneherd/internal/wire"
)

// The fleet measurement (PANEHERD_FLEET_BENCH=1, or -fleet-only): a daemon following
// fleetHosts hosts of fleetPanes panes each over the real ssh, through a real sshd on
// loopback. The hosts are Host aliases of one sshd, each at a loopback address of its
// own, so each is its own ssh connection and control socket as distinct machines' are;
// all reach the same remote tmux server and daemon. That is fair to what is measured:
// the local daemon's cost and latency hang on the streams, their lines and the panes
// they carry, which are the same as ten machines' (each stream carries all 20 panes and
// its own heartbeats); only the remote side's cost, not measured, is shared.
const (
	fleetHosts = 10
	fleetPanes = 20
	// fleetPane is the remote pane whose changes are timed: it cycles through the states.
	fleetPane = "cyc"
)

// fleetRun is the fleet measurement's processes.
type fleetRun struct {
	h                   harness
	remote, local       *world
	remoteD, localD     *exec.Cmd
	sshd                *sshtest.Server
	hosts               []string
	cleanups            []func()
	remoteDir, localDir paths.Dir
}

// fleet runs the fleet measurement and prints its figures.
func (h harness) fleet(ctx context.Context) (err error) {
	f := &fleetRun{h: h}
	defer f.close()
	defer func() {
		switch r := recover().(type) {
		case nil:
		case benchFailure:
			err = r
		default:
			panic(r)
		}
	}()
	if err := f.start(ctx); err != nil {
		return err
	}
	fmt.Printf("\n== fleet: %d hosts of %d panes each, over ssh to a loopback sshd\n", fleetHosts, fleetPanes)
	window := 30 * time.Second
	if h.quick {
		window = 10 * time.Second
	}
	if err := f.latency(ctx, window); err != nil {
		return err
	}
	if err := f.quiet(ctx); err != nil {
		return err
	}
	return f.idle(ctx, 2*window)
}

// start starts the remote server (fleetPanes panes, one cycling, its daemon), sshd with
// fleetHosts aliases reaching it, and the local server and daemon following them all.
func (f *fleetRun) start(ctx context.Context) error {
	var err error
	if f.remote, err = f.h.start(ctx, scenario{panes: 1, idle: fleetPanes - 1, sessions: 2}); err != nil {
		return err
	}
	cyc := f.remote.cyclingPane()
	if _, err := f.remote.server.Run(ctx, nil, "set-option", "-p", "-t", cyc, "@paneherd-name", fleetPane); err != nil {
		return err
	}
	if f.remoteD, f.remoteDir, err = f.h.daemon(ctx, f.remote); err != nil {
		return err
	}
	for i := 1; i <= fleetHosts; i++ {
		f.hosts = append(f.hosts, fmt.Sprintf("host%02d", i))
	}
	f.sshd = sshtest.Start(f, sshtest.Options{Aliases: f.hosts, Path: []string{filepath.Dir(f.h.paneherd)}, Env: []string{
		"TMUX=" + f.remote.server.Socket + ",1,0", "HOME=" + f.remote.dir, "TMUX_TMPDIR=" + f.remote.dir,
		"XDG_STATE_HOME=" + filepath.Join(f.remote.dir, "state"), "XDG_CONFIG_HOME=" + filepath.Join(f.remote.dir, "config")}})
	if f.local, err = f.h.start(ctx, scenario{idle: 1, sessions: 1}); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"@paneherd-hosts", strings.Join(f.hosts, " ")}, {"@paneherd-ssh", "-F " + remote.Quote(f.sshd.Config)}} {
		if _, err := f.local.server.Run(ctx, nil, "set-option", "-g", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if f.localD, f.localDir, err = f.h.daemon(ctx, f.local); err != nil {
		return err
	}
	return f.awaitUp(ctx)
}

// cyclingPane is the pane whose player cycles (the world's only one).
func (w *world) cyclingPane() string {
	for id, log := range w.logs {
		if strings.HasSuffix(log, "/p0.log") {
			return id
		}
	}
	return ""
}

// daemon starts paneherd's daemon on w's server.
func (h harness) daemon(ctx context.Context, w *world) (*exec.Cmd, paths.Dir, error) {
	d := exec.CommandContext(ctx, h.paneherd, "-S", w.server.Socket, "watch")
	d.Env = w.env
	return d, w.files(), d.Start()
}

// files are paneherd's directories for w's server, as its daemon has them (w.env).
func (w *world) files() paths.Dir {
	dir, _ := paths.ForServer(w.server.Socket, w.server.Key(), func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(w.dir, "state")
		}
		return os.Getenv(k)
	})
	return dir
}

// awaitUp waits until the local daemon shows every host up with all its panes.
func (f *fleetRun) awaitUp(ctx context.Context) error {
	deadline := time.Now().Add(60 * time.Second)
	for ctx.Err() == nil {
		snap, err := wire.ReadSnapshot(f.localDir.Snapshot())
		up := 0
		for _, h := range snap.Hosts {
			if h.State == wire.HostUp {
				up++
			}
		}
		if err == nil && up == fleetHosts && len(snap.Remote) == fleetHosts*fleetPanes {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("fleet: after 60 s, %d of %d hosts up, %d remote panes: %+v", up, fleetHosts, len(snap.Remote), snap.Hosts)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ctx.Err()
}

var badge = regexp.MustCompile(`\[(host\d+)/` + fleetPane + `: ([A-Z_]+)\]`)

// latency times each change of the cycling remote pane, from its player drawing it to
// the local daemon's pushed status line showing it, for every host (a sample each), and
// to the remote daemon's own snapshot showing it (the part that is not the fleet's).
func (f *fleetRun) latency(ctx context.Context, window time.Duration) error {
	client, err := controlmode.Attach(f.local.server, "s0", "no-output,ignore-size", func(controlmode.Event) {})
	if err != nil {
		return err
	}
	defer client.Close()
	cyc := f.remote.cyclingPane()
	remoteSeen := make(chan map[string][]observation, 1)
	go func() { remoteSeen <- watchSnapshot(ctx, f.remoteDir.Snapshot(), window) }()
	start := time.Now()
	seen := map[string][]observation{} // host -> the cycling pane's states in the pushed line
	last := map[string]string{}
	for end := start.Add(window); time.Now().Before(end) && ctx.Err() == nil; time.Sleep(5 * time.Millisecond) {
		replies, err := client.Run(ctx, [][]string{{"show-options", "-gqv", plugin.StatusOption}})
		if err != nil {
			return err
		}
		now := time.Now()
		for _, m := range badge.FindAllStringSubmatch(replies[0].Output, -1) {
			if last[m[1]] != m[2] {
				last[m[1]] = m[2]
				seen[m[1]] = append(seen[m[1]], observation{at: now, state: m[2]})
			}
		}
	}
	changes := readChanges(f.remote.logs[cyc])
	pushed := pair(changes, seen, start)
	own := pair(changes, map[string][]observation{cyc: (<-remoteSeen)[cyc]}, start)
	fmt.Printf("%-50s p50 %7.1f ms  p95 %7.1f ms  (%d samples)\n", "remote change -> local pushed line", ms(percentile(pushed, 0.5)), ms(percentile(pushed, 0.95)), len(pushed))
	fmt.Printf("%-50s p50 %7.1f ms  p95 %7.1f ms  (%d samples)\n", "remote change -> remote snapshot (no fleet)", ms(percentile(own, 0.5)), ms(percentile(own, 0.95)), len(own))
	return f.probe(ctx)
}

// pair is, for each change in the window and each key of seen, how long after the change
// seen first shows its state. READY counts past nothing: the remote shows it only after
// its pack's settle time, the same for every key, and is left out.
func pair(changes []observation, seen map[string][]observation, start time.Time) []time.Duration {
	var out []time.Duration
	for _, ch := range changes {
		if ch.at.Before(start) || ch.state == "READY" {
			continue
		}
		for _, obs := range seen {
			for _, ob := range obs {
				if !ob.at.Before(ch.at) && ob.state == ch.state {
					out = append(out, ob.at.Sub(ch.at))
					break
				}
			}
		}
	}
	return out
}

// probe times `paneherd version` on the first host over the daemon's connection, as
// `paneherd hosts` does: the network's round trips plus the remote's login shell and
// paneherd's start.
func (f *fleetRun) probe(ctx context.Context) error {
	conn, err := remote.NewConn(remote.Host{Label: f.hosts[0], Dest: f.hosts[0]}, f.localDir.SSH(), "-F "+remote.Quote(f.sshd.Config))
	if err != nil {
		return err
	}
	var rtts []time.Duration
	for i := 0; i < 10; i++ {
		p := herd.ProbeHost(ctx, conn)
		if p.Err != nil || !p.Shared {
			return fmt.Errorf("fleet: probe %s: %v (over the daemon's connection: %v)", f.hosts[0], p.Err, p.Shared)
		}
		rtts = append(rtts, p.RTT)
	}
	fmt.Printf("%-50s p50 %7.1f ms  (10 runs)\n", "paneherd version over the daemon's connection", ms(percentile(rtts, 0.5)))
	return nil
}

// quiet makes the remote idle: the cycling pane gives way to one more idle one, so every
// host has fleetPanes panes and none changes.
func (f *fleetRun) quiet(ctx context.Context) error {
	cyc := f.remote.cyclingPane()
	if _, err := f.remote.server.Run(ctx, nil, "kill-pane", "-t", cyc); err != nil {
		return err
	}
	delete(f.remote.logs, cyc)
	if err := f.remote.addPane(ctx, f.h.self, fleetPanes, "idle", 2, packsCycled); err != nil {
		return err
	}
	sleep(ctx, 10*time.Second) // the last READY settles, the lines stop
	return f.awaitUp(ctx)
}

// idle measures the local daemon's CPU while every host is idle (heartbeats only), with
// its ssh processes', and counts its ssh processes and sshd's connections.
func (f *fleetRun) idle(ctx context.Context, window time.Duration) error {
	pid := f.localD.Process.Pid
	ssh0 := sshChildren(pid)
	own0, kids0, t0 := cpuOf(pid), childrenCPU(pid), time.Now()
	most := 0
	for end := t0.Add(window); time.Now().Before(end) && ctx.Err() == nil; sleep(ctx, time.Second) {
		most = max(most, len(sshChildren(pid)))
	}
	over := time.Since(t0)
	own, kids := perSecond(cpuOf(pid)-own0, over), perSecond(childrenCPU(pid)-kids0, over)
	ssh := perSecond(cpuSince(ssh0), over)
	fmt.Printf("%-50s %7.2f %% of one core (over %s)\n", "idle: local daemon", own, over.Round(time.Second))
	fmt.Printf("%-50s %7.2f %% of one core\n", "idle: its ssh processes, together", ssh)
	fmt.Printf("%-50s %7.2f %% of one core\n", "idle: its tmux clients (control mode)", kids-ssh)
	fmt.Printf("%-50s %7d (at most, sampled each second; now %d)\n", "idle: the daemon's ssh processes", most, len(sshChildren(pid)))
	fmt.Printf("%-50s %7d\n", "idle: sshd's connections", f.sshd.Connections())
	fmt.Printf("%-50s %7.1f MB\n", "idle: daemon RSS", rssOf(pid))
	return nil
}

// sshChildren is the ssh processes pid runs, and the CPU each has used so far.
func sshChildren(pid int) map[int]time.Duration {
	procs, err := proc.Descendants(pid)
	if err != nil {
		return nil
	}
	out := map[int]time.Duration{}
	for _, p := range procs {
		if p.PPID == pid && p.Name == "ssh" && !p.Zombie {
			out[p.PID] = cpuOf(p.PID)
		}
	}
	return out
}

// cpuSince is the CPU the processes of before have used since, those still running.
func cpuSince(before map[int]time.Duration) time.Duration {
	var total time.Duration
	for pid, was := range before {
		if now := cpuOf(pid); now >= was {
			total += now - was
		}
	}
	return total
}

func (f *fleetRun) close() {
	for _, d := range []*exec.Cmd{f.localD, f.remoteD} {
		if d != nil && d.Process != nil {
			d.Process.Signal(syscall.SIGTERM)
			d.Wait()
		}
	}
	for _, w := range []*world{f.local, f.remote} {
		if w != nil {
			w.stop()
		}
	}
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// benchFailure is sshtest's Fatal or Skip in the bench: it ends the fleet measurement
// with its words.
type benchFailure struct{ error }

// The fleet run is sshtest.T to sshtest: a failure ends the measurement, a cleanup runs
// at its end.
func (f *fleetRun) Helper()           {}
func (f *fleetRun) Fatal(args ...any) { panic(benchFailure{fmt.Errorf("%s", fmt.Sprint(args...))}) }
func (f *fleetRun) Fatalf(format string, args ...any) {
	panic(benchFailure{fmt.Errorf(format, args...)})
}
func (f *fleetRun) Skip(args ...any)  { f.Fatal(args...) }
func (f *fleetRun) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
