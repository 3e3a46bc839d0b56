package notify

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// eventVariables are the variables docs/notifications.md documents, each with its JSON field.
var eventVariables = map[string]string{
	"PANEHERD_EVENT": "event", "PANEHERD_STATE": "state", "PANEHERD_PREVIOUS_STATE": "previous_state",
	"PANEHERD_NAME": "name", "PANEHERD_PANE": "pane", "PANEHERD_TARGET": "target",
	"PANEHERD_SUMMARY": "summary", "PANEHERD_TITLE": "title", "PANEHERD_BODY": "body",
	"PANEHERD_CRITICAL": "critical", "PANEHERD_HOST": "host", "PANEHERD_TIME": "time",
}

// recorder is a stand-in program that writes each PANEHERD_* variable, its stdin and its
// arguments into $RECORD, a variable of the daemon's own environment.
const recorder = `for v in ` + "PANEHERD_EVENT PANEHERD_STATE PANEHERD_PREVIOUS_STATE PANEHERD_NAME PANEHERD_PANE " +
	"PANEHERD_TARGET PANEHERD_SUMMARY PANEHERD_TITLE PANEHERD_BODY PANEHERD_CRITICAL PANEHERD_HOST PANEHERD_TIME" + `; do
	eval "printf '%s' \"\${$v}\"" > "$RECORD/$v"
done
cat > "$RECORD/stdin"
for a in "$@"; do printf '%s\000' "$a"; done > "$RECORD/args"
`

// standIn puts an executable shell script called name first on PATH.
func standIn(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// hostileNotification is a dialog whose pane name and screen try to run a command
// (touching marker), to break out of quotes, and to put escape sequences and bidi
// controls into a terminal.
func hostileNotification(marker string) Notification {
	hostile := "$(touch " + marker + ") `touch " + marker + "` \"; touch " + marker + "; \" '\\ \x1b]0;owned\x07\x1b[2J \u202eevil\u202c"
	return Notification{At: time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC), PaneID: "%7", Name: hostile,
		Target: "work:1.0", Event: NeedsConfirmation, State: "NEEDS_CONFIRMATION", From: "BUSY",
		Summary: hostile, Title: hostile + " needs your confirmation", Body: hostile + "\nin work:1.0", Critical: true}
}

func newTestCommand(t *testing.T, spec string) Command {
	t.Helper()
	c, err := NewCommand(spec, 10*time.Second, "devbox")
	if err != nil {
		t.Fatalf("NewCommand(%q): %v", spec, err)
	}
	return c
}

func TestCommandGivesTheEventAsDataInEnvironmentAndStdin(t *testing.T) {
	record := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	t.Setenv("RECORD", record)
	t.Setenv("PANEHERD_STATE", "a stale value in the daemon's environment")
	standIn(t, "paneherd-recorder", recorder)
	n := hostileNotification(marker)
	c := newTestCommand(t, `paneherd-recorder 'two words' "\$(touch `+marker+`)"`)
	if err := c.Send(context.Background(), n); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a command in the event ran: %s exists", marker)
	}
	want := NewEventObject(n, "devbox")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(record, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("args"); got != "two words\x00$(touch "+marker+")\x00" {
		t.Errorf("arguments %q", got)
	}
	var stdin map[string]any
	if err := json.Unmarshal([]byte(read("stdin")), &stdin); err != nil {
		t.Fatalf("stdin is not one JSON object: %v", err)
	}
	if keys := slices.Sorted(maps.Keys(stdin)); !slices.Equal(keys, slices.Sorted(maps.Values(eventVariables))) {
		t.Errorf("stdin's fields %v, docs/notifications.md documents %v", keys, slices.Sorted(maps.Values(eventVariables)))
	}
	for variable, field := range eventVariables {
		env := read(variable)
		if js := strings.Trim(jsonText(stdin[field]), `"`); env != js {
			t.Errorf("%s=%q but stdin's %s is %q", variable, env, field, js)
		}
		if strings.ContainsAny(env, "\x1b\x07\u202e\u202c") {
			t.Errorf("%s keeps a control character: %q", variable, env)
		}
	}
	checks := map[string]string{"PANEHERD_EVENT": "needs-confirmation", "PANEHERD_STATE": "NEEDS_CONFIRMATION",
		"PANEHERD_PREVIOUS_STATE": "BUSY", "PANEHERD_NAME": want.Name, "PANEHERD_PANE": "%7",
		"PANEHERD_TARGET": "work:1.0", "PANEHERD_SUMMARY": want.Summary, "PANEHERD_BODY": want.Summary + "\nin work:1.0",
		"PANEHERD_CRITICAL": "true", "PANEHERD_HOST": "devbox", "PANEHERD_TIME": "2026-05-04T03:02:01Z"}
	for variable, value := range checks {
		if got := read(variable); got != value {
			t.Errorf("%s=%q, want %q", variable, got, value)
		}
	}
	if !strings.Contains(want.Name, "$(touch "+marker+") `touch "+marker+"` \"; touch") {
		t.Errorf("the name lost its text: %q", want.Name)
	}
}

// jsonText is a decoded JSON value as the environment spells it.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(b)
}

// docs/notifications.md's advice, the screen's text only in the environment and a shell script in
// single quotes, runs nothing from the screen either.
func TestCommandScreenTextInAShellScriptStaysData(t *testing.T) {
	record := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	t.Setenv("RECORD", record)
	n := hostileNotification(marker)
	c := newTestCommand(t, `sh -c 'printf "%s|%s" "$PANEHERD_NAME" "$PANEHERD_SUMMARY" > "$RECORD/via-sh"'`)
	if err := c.Send(context.Background(), n); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a command in the event ran: %s exists", marker)
	}
	got, err := os.ReadFile(filepath.Join(record, "via-sh"))
	if err != nil {
		t.Fatal(err)
	}
	want := NewEventObject(n, "devbox")
	if string(got) != want.Name+"|"+want.Summary {
		t.Errorf("sh wrote %q, want %q", got, want.Name+"|"+want.Summary)
	}
}

func TestCommandFailureQuotesItsOutputMasked(t *testing.T) {
	standIn(t, "paneherd-failing", `echo "curl: (22) The requested URL returned error: 500 for token=ghp_abcdefghijklmnopqrstuvwxyz0123456789" >&2
printf 'and\033[2J more\n'
exit 22
`)
	err := newTestCommand(t, "paneherd-failing").Send(context.Background(), TestNotification())
	if err == nil {
		t.Fatal("a program that exited 22 was taken for delivered")
	}
	msg := err.Error()
	for _, want := range []string{"command: paneherd-failing exited with status 22", "curl: (22) The requested URL returned error: 500", "and"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") || strings.ContainsAny(msg, "\n\x1b") {
		t.Errorf("error is not one clean, masked line: %q", msg)
	}
}

func TestCommandProgramNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	c := newTestCommand(t, "paneherd-no-such-program --flag")
	err := c.Send(context.Background(), TestNotification())
	if err == nil || !strings.Contains(err.Error(), "paneherd-no-such-program is not found on the daemon's PATH") ||
		!strings.Contains(err.Error(), "install it, or give its full path") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Send: %v, want one line saying the program is not found and what to do", err)
	}
	if _, derr := c.Describe(context.Background()); derr == nil || derr.Error() != err.Error() {
		t.Errorf("Describe: %v, want Send's error", derr)
	}
	standIn(t, "paneherd-no-such-program", "exit 0\n")
	if err := c.Send(context.Background(), TestNotification()); err != nil {
		t.Errorf("once installed, Send: %v", err)
	}
	if d, err := c.Describe(context.Background()); err != nil || !strings.Contains(d, "paneherd-no-such-program --flag") {
		t.Errorf("Describe: %q, %v", d, err)
	}
}

func TestNewCommandRefusesBadSettingsInOneLine(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		timeout time.Duration
		want    string
	}{
		{"", 10 * time.Second, "names no program"},
		{"   ", 10 * time.Second, "names no program"},
		{"''", 10 * time.Second, "names no program"},
		{"notify-me $HOME", 10 * time.Second, "quote it, or put what you need in a script"},
		{"notify-me 'open", 10 * time.Second, "is not closed"},
		{"notify-me", 0, "give a positive duration"},
	} {
		_, err := NewCommand(tc.spec, tc.timeout, "h")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "@paneherd-notify-command") ||
			strings.Contains(err.Error(), "\n") {
			t.Errorf("NewCommand(%q, %s) = %v, want one line with %q", tc.spec, tc.timeout, err, tc.want)
		}
	}
}
