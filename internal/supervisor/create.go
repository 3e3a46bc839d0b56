package supervisor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/wire"
)

// Create starts a worker: it checks everything first (the directory is there and
// allowed, the name free, the pack known, the branch's repository a git repository), so a
// refusal leaves nothing behind; then makes the worktree if asked, opens the window,
// and registers the worker as starting. The caller waits for it to be READY. The name is
// held while git and tmux work, outside the lock: reconciles go on meanwhile. A launch
// that fails takes back the worktree it made.
func (s *Supervisor) Create(ctx context.Context, ask wire.CreateAsk) (wire.Worker, error) {
	s.mu.Lock()
	w, err := s.plan(ctx, ask)
	if err == nil {
		s.reserved[w.Name] = true
	}
	s.mu.Unlock()
	if err != nil {
		return wire.Worker{}, err
	}
	defer func() {
		s.mu.Lock()
		delete(s.reserved, w.Name)
		s.mu.Unlock()
	}()
	undo := func() {}
	if ask.Worktree != "" {
		if w.Workspace, undo, err = s.worktree(ctx, ask.Dir, ask.Worktree); err != nil {
			return wire.Worker{}, err
		}
	}
	if err := s.launch(ctx, w, w.Command); err != nil {
		undo()
		return wire.Worker{}, fmt.Errorf("create: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.workers[w.Name] = w
	s.run[w.Name] = &runtime{since: s.now()}
	s.save(w)
	if s.Wake != nil {
		s.Wake()
	}
	s.event(w, "registered", fmt.Sprintf("in %s, %s:%s, running %s", w.Workspace, w.Session, w.Window, w.Command))
	return *w, nil
}

// plan checks a create request and returns the worker it would make. Under s.mu.
func (s *Supervisor) plan(ctx context.Context, ask wire.CreateAsk) (*wire.Worker, error) {
	dir, err := s.allowedDir(ask.Dir)
	if err != nil {
		return nil, err
	}
	restart := ask.Restart
	if restart == "" {
		restart = OnFailure
	}
	if restart != OnFailure && restart != Always && restart != Never {
		return nil, errorf("create: --restart %q: give on-failure, always or never", restart)
	}
	name := ask.Name
	if name == "" {
		name = defaultName(dir, ask.Worktree)
	}
	if err := checkName("name", name); err != nil {
		return nil, err
	}
	if _, taken := s.workers[name]; taken || s.reserved[name] {
		return nil, errorf("create: a worker named %q exists (paneherd workers); give --name, or retire it first", name)
	}
	session := ask.Session
	if session == "" {
		session = "agents_" + tmuxSafe(filepath.Base(dir))
	}
	if err := checkName("session", session); err != nil {
		return nil, err
	}
	if err := s.windowFree(ctx, session, name); err != nil {
		return nil, err
	}
	w := &wire.Worker{ID: newID(), Name: name, Workspace: dir, Worktree: ask.Worktree, Created: s.now(),
		Session: session, Window: name, Pack: ask.Pack, Restart: restart, Status: string(Starting),
		HealthEvery: ask.HealthEvery, HealthPrompt: ask.HealthPrompt, HandoffAt: ask.HandoffAt,
		HandoffPrompt: ask.HandoffPrompt, Heartbeat: s.now()}
	if err := s.commands(w, ask); err != nil {
		return nil, err
	}
	if ask.Worktree != "" {
		if err := checkRepository(ctx, dir, ask.Worktree); err != nil {
			return nil, err
		}
	}
	if (ask.HealthEvery > 0) != (ask.HealthPrompt != "") {
		return nil, errorf("create: --health-every and --health-prompt go together")
	}
	if err := checkHandoff(ask.HandoffAt, ask.HandoffPrompt); err != nil {
		return nil, err
	}
	return w, nil
}

// commands sets the worker's start and resume commands from -- COMMAND or its pack.
func (s *Supervisor) commands(w *wire.Worker, ask wire.CreateAsk) error {
	if ask.Pack != "" {
		p, err := s.Packs.Get(ask.Pack)
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		w.Command, w.Resume = p.Launch.Command, p.Launch.Resume
		if w.Command == "" && len(ask.Command) == 0 {
			return errorf("create: pack %q has no [launch] command: give the command after --", ask.Pack)
		}
	}
	if len(ask.Command) > 0 {
		words := make([]string, len(ask.Command))
		for i, a := range ask.Command {
			words[i] = tmux.ShellWord(a)
		}
		w.Command = strings.Join(words, " ")
		if ask.Pack == "" {
			w.Resume = "" // a command of the person's own: restarts run it again
		}
	}
	if w.Command == "" {
		return errorf("create: nothing to run: give --pack PACK (its [launch] command) or -- COMMAND")
	}
	return nil
}

// allowedDir resolves dir and checks it is a directory inside an allowed workspace.
func (s *Supervisor) allowedDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", errorf("create: %q is not an absolute path", dir)
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", errorf("create: %s does not exist", dir)
	case err != nil:
		return "", fmt.Errorf("create: %w", err)
	case !fi.IsDir():
		return "", errorf("create: %s is not a directory", dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("create: %w", err)
	}
	if !s.allowed(real) {
		return "", errorf("create: %s is outside the allowed workspaces (%s); set @paneherd-workspaces to allow it",
			dir, strings.Join(s.config().Workspaces, ":"))
	}
	return real, nil
}

// allowed reports whether dir (resolved) is one of the workspaces or under one.
func (s *Supervisor) allowed(dir string) bool {
	for _, root := range s.config().Workspaces {
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		rel, err := filepath.Rel(root, dir)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// badName finds what a worker's or session's name may not hold. ASCII only: tmux lists
// other letters as '_' to a client without a UTF-8 locale, so the name it lists would not
// be the name asked; and look-alike letters (a Cyrillic 'а' beside a Latin 'a') would let
// two workers' names read the same where a person or an orchestrator picks a target.
var badName = regexp.MustCompile(`[^A-Za-z0-9_+@%=,-]`)

// tmuxSafe turns a directory's name into a session or window name tmux targets
// cannot misread: '.' and ':' separate a target's parts, and badName says why ASCII.
func tmuxSafe(s string) string {
	s = badName.ReplaceAllString(s, "_")
	if s == "" {
		return "worker"
	}
	return s
}

// defaultName is the directory's name, or the branch's with --worktree.
func defaultName(dir, branch string) string {
	if branch != "" {
		return tmuxSafe(branch)
	}
	return tmuxSafe(filepath.Base(dir))
}

// checkName refuses a worker's or session's name tmux targets would misread, or a pane
// id's look-alike.
func checkName(what, name string) error {
	switch {
	case name == "":
		return errorf("create: empty %s", what)
	case len(name) > 64:
		return errorf("create: %s %q is longer than 64 characters", what, name)
	case badName.MatchString(name) || strings.HasPrefix(name, "%") || strings.HasPrefix(name, "@") || strings.HasPrefix(name, "$"):
		return errorf("create: %s %q: use ASCII letters, digits and _+@%%=,- only, not starting with %%, @ or $ (tmux reads . and : as parts of a target, and lists other letters as _ to a client without a UTF-8 locale)", what, name)
	}
	return nil
}

// windowFree refuses a window name the session already has: a target by name must
// name one window.
func (s *Supervisor) windowFree(ctx context.Context, session, name string) error {
	out, err := s.Server.Run(ctx, nil, "list-windows", "-a", "-F", "#{session_name}\x1f#{window_name}")
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return fmt.Errorf("create: %w", err)
	}
	for _, line := range strings.Split(out, "\n") {
		if line == session+"\x1f"+name {
			return errorf("create: session %s already has a window named %s; give --name", session, name)
		}
	}
	return nil
}

// checkRepository refuses --worktree outside a git repository.
func checkRepository(ctx context.Context, dir, branch string) error {
	if _, err := git(ctx, dir, "rev-parse", "--show-toplevel"); err != nil {
		return errorf("create: --worktree %s: %s is not in a git repository", branch, dir)
	}
	if _, err := git(ctx, dir, "check-ref-format", "--branch", branch); err != nil {
		return errorf("create: --worktree %q is not a valid branch name", branch)
	}
	return nil
}

// worktree makes (or reuses) the git worktree for branch and returns its directory,
// and how to take back what it made: under WorktreeDir, else <repo>.worktrees/<branch>
// beside the repository. An existing worktree of that branch is used again (and kept);
// anything else there is refused.
func (s *Supervisor) worktree(ctx context.Context, dir, branch string) (string, func(), error) {
	keep := func() {}
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", keep, errorf("create: --worktree %s: %s is not in a git repository", branch, dir)
	}
	base := s.config().WorktreeDir
	if base == "" {
		base = top + ".worktrees"
	}
	path := filepath.Join(base, tmuxSafe(branch))
	if !s.allowed(path) {
		return "", keep, errorf("create: the worktree %s would be outside the allowed workspaces; set @paneherd-worktree-dir or @paneherd-workspaces", path)
	}
	if _, err := os.Stat(path); err == nil {
		if head, err := git(ctx, path, "rev-parse", "--abbrev-ref", "HEAD"); err == nil && head == branch {
			real, err := filepath.EvalSymlinks(path)
			return real, keep, err
		}
		return "", keep, errorf("create: %s exists and is not a worktree of %s; move it or set @paneherd-worktree-dir", path, branch)
	}
	args := []string{"worktree", "add", path, branch}
	newBranch := false
	if _, err := git(ctx, top, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		args, newBranch = []string{"worktree", "add", "-b", branch, path}, true
	}
	if out, err := git(ctx, top, args...); err != nil {
		return "", keep, errorf("create: git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	undo := func() {
		ctx := context.WithoutCancel(ctx)
		git(ctx, top, "worktree", "remove", "--force", path)
		if newBranch {
			git(ctx, top, "branch", "-D", branch)
		}
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		undo()
	}
	return real, undo, err
}

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}
