package demo

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/daemonlock"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/plugin"
	"github.com/paneherd/paneherd/internal/tmux"
)

// Options configure a demo run.
type Options struct {
	Binary   string        // the paneherd binary the demo's panes and plugin run
	Headless bool          // print status lines instead of attaching
	Duration time.Duration // how long a headless demo runs
	Stdout   io.Writer
	Stderr   io.Writer
}

// Shown are the states a demo must show for a headless run to pass.
var Shown = []string{"READY", "BUSY", "NEEDS_CONFIRMATION", "ERROR"}

// demoServer is the demo's private tmux server and its scratch directory.
type demoServer struct {
	server tmux.Server
	dir    string // XDG dirs of the demo's tmux server, daemon and hooks
	env    []string
}

// Run starts a private tmux server with the workers and paneherd loaded as a plugin, then
// attaches to it, or, headless, prints each distinct status line for a while. It always
// kills the server and removes its files before returning.
func Run(ctx context.Context, o Options) error {
	d, err := newDemoServer()
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.start(ctx, o.Binary); err != nil {
		return err
	}
	if o.Headless {
		return d.watch(ctx, o)
	}
	return d.attach(o)
}

func newDemoServer() (*demoServer, error) {
	// Short, because tmux sockets live under TMUX_TMPDIR only if the path fits ~100 bytes;
	// here only the daemon's files go.
	dir, err := os.MkdirTemp("", "paneherd-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	d := &demoServer{server: tmux.Server{Name: "paneherd-demo-" + strconv.Itoa(os.Getpid())}, dir: dir}
	// The demo's own XDG dirs: its database and logs go with it, and the person's own
	// packs do not change what the demo shows.
	xdg := []string{"XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME"}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "TMUX" && !slices.Contains(xdg, name) {
			d.env = append(d.env, kv)
		}
	}
	for _, name := range xdg {
		d.env = append(d.env, name+"="+filepath.Join(dir, strings.ToLower(strings.TrimPrefix(name, "XDG_"))))
	}
	return d, nil
}

// start writes the demo's tmux.conf, starts the server with the first worker, adds the
// others, and waits until the daemon has published a status line.
func (d *demoServer) start(ctx context.Context, binary string) error {
	conf := filepath.Join(d.dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(config(binary)), 0o600); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	first := Workers[0]
	cmd := exec.CommandContext(ctx, "tmux", d.server.Args("-f", conf, "new-session", "-d", "-s", "demo",
		"-x", "120", "-y", "40", "-n", first.Name, workerCommand(binary, first, 0))...)
	cmd.Env = d.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("demo: start tmux: %v: %s", err, strings.TrimSpace(string(out)))
	}
	var setup [][]string
	for i, w := range Workers[1:] {
		setup = append(setup, []string{"new-window", "-d", "-t", "demo:", "-n", w.Name, workerCommand(binary, w, i+1)})
	}
	if _, err := d.server.Run(ctx, nil, tmux.Chain(setup)...); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return d.awaitStatus(ctx)
}

// config is the demo server's tmux.conf: a status bar with the placeholder, then the
// plugin, applied the way paneherd.tmux applies it. Two status lines: tmux 3.3a shows a
// message on the last one, so the demo's notifications (its workers fail on purpose)
// never hide the badges on the first.
func config(binary string) string {
	return fmt.Sprintf(`set -g status 2
set -g status-format[1] '#[align=centre,dim]notifications show on this line'
set -g status-interval 1
set -g status-left '#[bold] paneherd demo #[default]'
set -g status-left-length 20
set -g status-right '#{paneherd_status}'
set -g status-right-length 200
set -g @paneherd-tick 500ms
set -g mouse on
run-shell -b %s
`, tmux.Quote(tmux.ShellWord(binary)+" plugin apply"))
}

// workerCommand is the shell command of a worker's pane. No pack claims the process, so
// the daemon picks each pack from the screens' signatures, as for an agent behind ssh.
func workerCommand(binary string, w Worker, start int) string {
	return fmt.Sprintf("exec %s demo-worker %s %d", tmux.ShellWord(binary), w.Pack, start)
}

func (d *demoServer) awaitStatus(ctx context.Context) error {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if line, _ := d.statusLine(ctx); line != "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("demo: the daemon showed no status line within 15s; see %s", filepath.Join(d.dir, "state"))
}

func (d *demoServer) statusLine(ctx context.Context) (string, error) {
	out, err := d.server.Run(ctx, nil, "show-options", "-gqv", plugin.StatusOption)
	return strings.TrimSuffix(out, "\n"), err
}

var (
	styleRun  = regexp.MustCompile(`#\[[^\]]*\]`)
	badgeKind = regexp.MustCompile(`: ([A-Z_]+)\]`)
)

// plain turns a tmux-formatted status line into what a terminal shows.
func plain(line string) string {
	return strings.ReplaceAll(styleRun.ReplaceAllString(line, ""), "##", "#")
}

// watch prints each distinct status line for the demo's duration and fails unless every
// state in Shown appeared.
func (d *demoServer) watch(ctx context.Context, o Options) error {
	seen := map[string]bool{}
	last := ""
	end := time.Now().Add(o.Duration)
	for time.Now().Before(end) {
		line, err := d.statusLine(ctx)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if line != last && line != "" {
			last = line
			fmt.Fprintln(o.Stdout, plain(line))
			for _, m := range badgeKind.FindAllStringSubmatch(line, -1) {
				seen[m[1]] = true
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return missing(seen)
}

func missing(seen map[string]bool) error {
	var not []string
	for _, s := range Shown {
		if !seen[s] {
			not = append(not, s)
		}
	}
	if len(not) > 0 {
		sort.Strings(not)
		return fmt.Errorf("demo: never shown: %s", strings.Join(not, ", "))
	}
	return nil
}

// attach hands the terminal to the demo until the person detaches.
func (d *demoServer) attach(o Options) error {
	fmt.Fprintln(o.Stderr, "paneherd demo: watch the status bar; press Ctrl-b d to leave (the demo then ends).")
	cmd := exec.Command("tmux", d.server.Args("attach", "-t", "demo")...)
	cmd.Env = d.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}

// close kills the demo server, waits for its daemon to go (it exits with the server) and
// removes every file the demo made.
func (d *demoServer) close() {
	d.server.Run(context.Background(), nil, "kill-server")
	// tmux 3.3a leaves its socket file behind on kill-server; the demo's is ours to remove,
	// and first: a hook the dying server ran revives a daemon while the socket is there,
	// and would make the runtime directory again after it was removed.
	os.Remove(d.server.SocketPath())
	dir, err := paths.ForServer(d.server.SocketPath(), d.server.Key(), func(k string) string {
		if k == "XDG_STATE_HOME" {
			return filepath.Join(d.dir, "state")
		}
		return os.Getenv(k) // as the daemon has it (d.env)
	})
	if err == nil {
		removeRuntime(dir)
	}
	os.RemoveAll(d.dir)
}

// removeRuntime removes the server's runtime directory once its daemon has gone, and again
// if a hook that looked before the socket went has made it anew (its daemon finds no
// server and exits at once): for at most a second after the first removal.
func removeRuntime(dir paths.Dir) {
	waitNoDaemon := func() {
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end) && daemonlock.Holder(dir.Lock()) != 0; {
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitNoDaemon()
	os.RemoveAll(dir.Runtime)
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(dir.Runtime); err == nil {
			waitNoDaemon()
			os.RemoveAll(dir.Runtime)
		}
	}
}
