package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/remote"
	"github.com/paneherd/paneherd/internal/sshtest"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

// sshHost makes the rig remote a host reached through a real sshd on loopback, as
// devbox (and sshtest.UnknownKeyAlias, whose key ssh does not know): its sessions find a
// paneherd that is the built binary on remote's server, in remote's environment (a
// second machine's own paneherd, with its own tmux server as its default).
func sshHost(t *testing.T, remote *rig) *sshtest.Server {
	t.Helper()
	bin := t.TempDir()
	var env []string
	for _, kv := range remote.env {
		env = append(env, shellQuote(kv))
	}
	script := "#!/bin/sh\nexec env -i TERM=\"${TERM:-dumb}\" " + strings.Join(env, " ") + " " +
		shellQuote(binary) + " -S " + shellQuote(remote.tmux.Server.Socket) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "paneherd"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return sshtest.Start(t, sshtest.Options{Aliases: []string{"devbox"}, Path: []string{bin}})
}

// TestActingAcrossHosts: commands on devbox:NAME run the same command on the host
// devbox, through its real sshd: a hostile prompt and a hostile name arrive literally
// and nothing in them runs, approve answers a dialog there, wait and history answer as
// there, outcomes and exit codes are the host's; a host whose key is unknown and a host
// not listed say so in one line; Ctrl-C ends the command there; MCP's send_prompt goes
// the same way; switch shows the host's pane in a window here.
func TestActingAcrossHosts(t *testing.T) {
	remoteRig := newRig(t)
	remoteRig.setOptions("send-quiet", "0s", "send-limit", "100", "mcp-send", "any")
	pwned := filepath.Join(t.TempDir(), "pwned")
	name := "api;$(touch " + pwned + ")`touch " + pwned + "`'\"\\"
	rec, reads := remoteRig.recorderPane(t, "", "rec")
	remoteRig.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-pack", "shell")
	remoteRig.tmux.Run("set-option", "-p", "-t", rec, "@paneherd-name", name)
	dialog, dialogReads := remoteRig.recorderPane(t, "work", "dialog", "-screen",
		shellQuote(fixture(t, "claude/10-NEEDS_CONFIRMATION-bash-permission-prompt.txt")))
	remoteRig.tmux.Run("set-option", "-p", "-t", dialog, "@paneherd-pack", "claude")
	remoteRig.start()
	remoteRig.waitState(rec, "READY")
	remoteRig.waitState(dialog, "NEEDS_CONFIRMATION")
	sshd := sshHost(t, remoteRig)

	r := newRig(t)
	r.tmux.NewSession("main", "exec sleep 100000")
	r.setOptions("hosts", "devbox "+sshtest.UnknownKeyAlias, "ssh", "-F "+remote.Quote(sshd.Config))
	r.start()
	target := "devbox:" + name

	prompt := "one; $(touch " + pwned + ") `touch " + pwned + "`\n'q' \"dq\" \\ end"
	res, code, errs := r.send(target, prompt)
	if code != 0 || res.Outcome != "DELIVERED" {
		t.Fatalf("send %s: exit %d %+v %s", target, code, res, errs)
	}
	want := []string{"\x1b[200~" + prompt + "\x1b[201~", "\r"}
	if got := reads(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the host's pane received %q\nwant %q", got, want)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("something in the target or the prompt ran")
	}

	// The same outcome and exit code as the host's own command.
	there, _, thereCode := remoteRig.paneherd("send", "dialog", "not now", "--json")
	here, _, hereCode := r.paneherd("send", "devbox:dialog", "not now", "--json")
	if hereCode != 17 || thereCode != hereCode || outcomeOf(here) != "NOT_READY" || outcomeOf(there) != outcomeOf(here) {
		t.Errorf("send to a dialog: here exit %d %s, there exit %d %s; want NOT_READY 17 both", hereCode, here, thereCode, there)
	}
	out, errs, code := r.paneherd("approve", "devbox:dialog", "--json")
	if code != 0 || outcomeOf(out) != "ANSWERED" || strings.Join(dialogReads(), "") != "1" {
		t.Errorf("approve devbox:dialog: exit %d %s %s, pressed %q; want ANSWERED and the pack's 1", code, out, errs, dialogReads())
	}
	out, errs, code = r.paneherd("wait", target, "--until", "READY", "--json")
	var waited struct {
		FinalState string `json:"final_state"`
		PaneID     string `json:"pane_id"`
		Name       string
	}
	json.Unmarshal([]byte(out), &waited)
	if code != 0 || waited.FinalState != "reached" || waited.PaneID != rec || waited.Name != name {
		t.Errorf("wait %s --json: exit %d %s %s", target, code, out, errs)
	}
	out, _, code = r.paneherd("history", target, "--json")
	if code != 0 || !strings.Contains(out, res.ID+" DELIVERED") {
		t.Errorf("history %s: exit %d %s; want the send audited there", target, code, out)
	}

	unreachable(t, r)
	hangUp(t, r, target)
	mcpSend(t, r, target, reads)
	switchShows(t, r, remoteRig, target, rec)
}

func outcomeOf(out string) string {
	var res struct{ Outcome string }
	json.Unmarshal([]byte(out), &res)
	return res.Outcome
}

// unreachable: a host whose key ssh does not know fails at once, in one line, asking
// nothing (stdin is a terminal-less pipe, and BatchMode); a host not listed is no target,
// and the error says to add it.
func unreachable(t *testing.T, r *rig) {
	t.Helper()
	began := time.Now()
	_, errs, code := r.paneherd("send", sshtest.UnknownKeyAlias+":api", "hello")
	if code != 255 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "host key of unknown-key is not known") {
		t.Errorf("a host with an unknown key: exit %d %q; want 255 and one line", code, errs)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("a host with an unknown key took %s to fail", took)
	}
	_, errs, code = r.paneherd("approve", "nohost:api")
	if code != 10 || !strings.Contains(errs, "nohost is not a host of @paneherd-hosts") || !strings.Contains(errs, "add it") {
		t.Errorf("a host not listed: exit %d %q; want TARGET_NOT_FOUND (10) saying to add it", code, errs)
	}
}

// hangUp: Ctrl-C on a wait on the host ends it here at once, and there too: sshd tells
// the command nothing, its stdout's reader going is its word.
func hangUp(t *testing.T, r *rig, target string) {
	t.Helper()
	cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "wait", target, "--until", "BUSY", "--timeout", "5m")
	cmd.Env = r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	onHost := func() []int { return processesWith(binary, "wait", "--until=BUSY") }
	if !tmuxtest.Poll(20*time.Second, func() bool { return len(onHost()) == 1 }) {
		cmd.Process.Kill()
		<-done
		t.Fatalf("the wait never ran on the host: %s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 130 {
			t.Errorf("after Ctrl-C: %v %s; want exit 130", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("wait %s still runs 10 s after Ctrl-C", target)
	}
	if !tmuxtest.Poll(10*time.Second, func() bool { return len(onHost()) == 0 }) {
		for _, pid := range onHost() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("the wait on the host still runs 10 s after its asker hung up")
	}
}

// processesWith is the processes whose command line holds each of words.
func processesWith(words ...string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		all := true
		for _, w := range words {
			all = all && containsWord(args, w)
		}
		if all {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
			pids = append(pids, pid)
		}
	}
	return pids
}

func containsWord(args []string, w string) bool {
	for _, a := range args {
		if a == w {
			return true
		}
	}
	return false
}

// mcpSend: send_prompt to HOST:NAME is the host's own send_prompt.
func mcpSend(t *testing.T, r *rig, target string, reads func() []string) {
	t.Helper()
	cmd := exec.Command(binary, "-S", r.tmux.Server.Socket, "mcp")
	cmd.Env = r.env
	session, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to paneherd mcp: %v", err)
	}
	defer session.Close()
	before := len(reads())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "send_prompt",
		Arguments: map[string]any{"worker": target, "text": "from the orchestrator; $(true)"}})
	if err != nil || res.IsError {
		t.Fatalf("send_prompt %s: %v %+v", target, err, res)
	}
	var sent struct{ Outcome string }
	raw, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(raw, &sent)
	got := reads()
	if sent.Outcome != "DELIVERED" || len(got) != before+2 || got[before] != "\x1b[200~from the orchestrator; $(true)\x1b[201~" {
		t.Errorf("send_prompt %s: %s; the pane received %q", target, raw, got[before:])
	}
}

// switchShows: switch HOST:NAME opens a window here whose ssh is a client of the host's
// server on that pane; switch again takes the client to the same window; deny with no
// target there answers the host's pane.
func switchShows(t *testing.T, r, remoteRig *rig, target, pane string) {
	t.Helper()
	attachViewer(t, r, "main")
	for i := 0; i < 2; i++ {
		if _, errs, code := r.paneherd("switch", target); code != 0 {
			t.Fatalf("switch %s: exit %d %s", target, code, errs)
		}
	}
	r.waitFor("a client of the host's server on "+pane, 30*time.Second, func() bool {
		out, _ := remoteRig.tmux.Server.Run(context.Background(), nil, "list-clients", "-F", "#{client_control_mode} #{pane_id}")
		return strings.Contains(out, "0 "+pane)
	})
	// The approve and deny keys, in that window, answer the host's pane: NOT_A_DIALOG
	// there (it is at its prompt), not "nothing waits here".
	var client string
	for _, line := range strings.Split(r.tmux.Run("list-clients", "-F", "#{client_control_mode} #{client_name}"), "\n") {
		if mode, name, _ := strings.Cut(line, " "); mode == "0" {
			client = name
		}
	}
	if _, _, code := r.paneherd("deny", "--client", client); code != 18 {
		t.Errorf("deny --client in the window onto %s: exit %d, want the host's NOT_A_DIALOG (18)", target, code)
	}
	windows := r.tmux.Run("list-windows", "-t", "main", "-F", "#{window_name}")
	if strings.Count(windows, "\n") != 1 {
		t.Errorf("windows of main: %q; want main's and one showing %s", windows, target)
	}
	r.tmux.Run("kill-window", "-t", "main:1")
	r.waitFor("the host's client gone with the window", 30*time.Second, func() bool {
		out, _ := remoteRig.tmux.Server.Run(context.Background(), nil, "list-clients", "-F", "#{client_control_mode}")
		return !strings.Contains(out, "0")
	})
}
