package notify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// standInOsascript puts a program named osascript, running the sh script body, first on
// PATH, and leaves no session bus to find: the macOS path must not need one.
func standInOsascript(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "osascript")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	return path
}

// recordingOsascript is a stand-in osascript (program) that writes its arguments, each
// ended by a NUL, to record.
func recordingOsascript(t *testing.T) (record, program string) {
	record = filepath.Join(t.TempDir(), "argv")
	program = standInOsascript(t, `for a in "$@"; do printf '%s\0' "$a"; done > '`+record+`'`)
	return record, program
}

func recordedArgs(t *testing.T, record string) []string {
	t.Helper()
	data, err := os.ReadFile(record)
	if err != nil {
		t.Fatalf("the stand-in osascript did not run: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// parseAppleScript splits script as AppleScript reads it into its code, each string
// literal in it replaced by _, and the literals' text: a literal runs from a double quote
// to the next one not escaped, and \\, \", \n, \r and \t are its only escapes (any other
// is a syntax error to AppleScript, so one here is an error too).
func parseAppleScript(script string) (code string, texts []string, err error) {
	var out, text strings.Builder
	inText, escaped := false, false
	for _, r := range script {
		switch {
		case !inText && r == '"':
			inText = true
			text.Reset()
		case !inText:
			out.WriteRune(r)
		case escaped:
			unescaped, ok := map[rune]rune{'\\': '\\', '"': '"', 'n': '\n', 'r': '\r', 't': '\t'}[r]
			if !ok {
				return "", nil, fmt.Errorf("unknown escape \\%c in %q", r, script)
			}
			text.WriteRune(unescaped)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '"':
			inText = false
			texts = append(texts, text.String())
			out.WriteString("_")
		default:
			text.WriteRune(r)
		}
	}
	if inText {
		return "", nil, fmt.Errorf("unterminated string literal in %q", script)
	}
	return out.String(), texts, nil
}

// TestMacOSNotificationQuoting: on macOS, with no session bus, Send runs osascript with
// one AppleScript statement whose code is always the same and whose string literals hold
// the title and body as Outbound leaves them: quotes, backslashes, a command substitution
// and AppleScript's own concatenation stay text, escape sequences and bidi controls never
// reach it, line breaks are escapes. Critical ones ask for a sound.
func TestMacOSNotificationQuoting(t *testing.T) {
	tests := []struct {
		name string
		n    Notification
		code string
	}{
		{"hostile dialog", Notification{Critical: true,
			Title: "web \"$(touch x)\" \\ needs you\n\x1b]0;owned\x07",
			Body:  "run `rm -rf ~`?\" & (do shell script \"touch y\") & \"\n\x1b[31mred\x1b[0m \u202egnp.exe\\"},
			`display notification _ with title _ sound name _`},
		{"finished", Notification{Title: `api finished \`, Body: "\"quoted\"\r\n\ttabbed\u2028line"},
			`display notification _ with title _`},
		{"empty", Notification{}, `display notification _ with title _`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			record, _ := recordingOsascript(t)
			if err := (Desktop{GOOS: "darwin"}).Send(context.Background(), tt.n); err != nil {
				t.Fatalf("Send: %v", err)
			}
			args := recordedArgs(t, record)
			if len(args) != 2 || args[0] != "-e" {
				t.Fatalf("osascript ran with %q, want -e and one statement", args)
			}
			if strings.ContainsAny(args[1], "\n\r") {
				t.Errorf("the statement spans lines: %q", args[1])
			}
			code, texts, err := parseAppleScript(args[1])
			if err != nil {
				t.Fatal(err)
			}
			want := Outbound(tt.n)
			wantTexts := []string{want.Body, want.Title}
			if tt.n.Critical {
				wantTexts = append(wantTexts, criticalSound)
			}
			if code != tt.code || fmt.Sprint(texts) != fmt.Sprint(wantTexts) {
				t.Fatalf("osascript -e %q\nreads as %q with texts %q\nwant     %q with texts %q", args[1], code, texts, tt.code, wantTexts)
			}
			for _, text := range texts {
				if strings.ContainsAny(text, "\x1b\x07\u202e") {
					t.Errorf("a control character reached the notification: %q", text)
				}
			}
		})
	}
	// What the hostile case must keep, so the check above is not passed by dropping text.
	hostile := Outbound(tests[0].n)
	for _, keep := range []string{`"$(touch x)" \ needs you`, `" & (do shell script "touch y") & "`, "\n?[31mred", `gnp.exe\`} {
		if !strings.Contains(hostile.Title+hostile.Body, keep) {
			t.Errorf("Outbound(hostile) = %q / %q, lost %q", hostile.Title, hostile.Body, keep)
		}
	}
}

// FuzzAppleScriptText: any text, quoted, reads back as one AppleScript string literal
// holding exactly that text (invalid UTF-8 becoming U+FFFD), on one line.
func FuzzAppleScriptText(f *testing.F) {
	for _, s := range []string{"", `"`, `\`, `\"`, `"\`, "a\nb\r\tc", `" & (do shell script "id") & "`, "\u201cx\u201d «data»", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := appleScriptText(s)
		code, texts, err := parseAppleScript(lit)
		if err != nil || code != "_" || len(texts) != 1 {
			t.Fatalf("appleScriptText(%q) = %q reads as %q %q, %v", s, lit, code, texts, err)
		}
		if strings.ContainsAny(lit, "\n\r") || !utf8.ValidString(lit) {
			t.Errorf("appleScriptText(%q) = %q: not one line of UTF-8", s, lit)
		}
		if utf8.ValidString(s) && texts[0] != s {
			t.Errorf("appleScriptText(%q) reads back as %q", s, texts[0])
		}
	})
}

// TestMacOSWithoutOsascript: no osascript on PATH is one line saying so and what to do,
// from Send, FindBus (doctor) and Describe alike; never the session bus's error.
func TestMacOSWithoutOsascript(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	d := Desktop{GOOS: "darwin", Whose: "the daemon's"}
	err := d.Send(context.Background(), TestNotification())
	if !errors.Is(err, ErrNoOsascript) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "not on the daemon's PATH") || !strings.Contains(err.Error(), "@paneherd-notify-backend tmux") {
		t.Errorf("Send = %v; want ErrNoOsascript, on one line, saying whose PATH and what to do", err)
	}
	if _, err := d.FindBus(context.Background()); !errors.Is(err, ErrNoOsascript) || errors.Is(err, ErrNoDesktop) {
		t.Errorf("FindBus = %v; want ErrNoOsascript", err)
	}
	if _, err := d.Describe(context.Background()); !errors.Is(err, ErrNoOsascript) {
		t.Errorf("Describe = %v; want ErrNoOsascript", err)
	}
}

// TestMacOSPlatformChoice: GOOS picks the path. darwin finds osascript where Linux would
// look for a bus and finds none; linux never runs osascript.
func TestMacOSPlatformChoice(t *testing.T) {
	record, path := recordingOsascript(t)
	mac := Desktop{GOOS: "darwin"}
	found, err := mac.FindBus(context.Background())
	if err != nil || found != (FoundBus{Addr: path, From: "osascript (macOS Notification Center)"}) {
		t.Errorf("FindBus on darwin = %+v, %v", found, err)
	}
	if got, err := mac.Describe(context.Background()); err != nil || got != "osascript (macOS Notification Center) at "+path {
		t.Errorf("Describe on darwin = %q, %v", got, err)
	}
	err = Desktop{GOOS: "linux", UID: -1}.Send(context.Background(), TestNotification())
	if !errors.Is(err, ErrNoDesktop) {
		t.Errorf("Send on linux with no bus = %v, want ErrNoDesktop", err)
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("linux ran osascript (%v)", err)
	}
}

// TestMacOSOsascriptFails: what AppleScript says on stderr is in the error.
func TestMacOSOsascriptFails(t *testing.T) {
	standInOsascript(t, `echo '0:48: execution error: Notifications are not allowed. (-1743)' >&2; exit 1`)
	err := Desktop{GOOS: "darwin"}.Send(context.Background(), TestNotification())
	if err == nil || !strings.Contains(err.Error(), "exit status 1: 0:48: execution error: Notifications are not allowed. (-1743)") {
		t.Errorf("Send = %v; want osascript's exit status and message", err)
	}
}

// TestMacOSOsascriptHangs: an osascript that never ends is killed when the context ends,
// and Send returns at once.
func TestMacOSOsascriptHangs(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	standInOsascript(t, `echo $$ > '`+pidFile+`'; exec sleep 60`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Desktop{GOOS: "darwin"}.Send(ctx, TestNotification()) }()
	pid := waitForPID(t, pidFile)
	reaped := false
	defer func() {
		if !reaped {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "osascript did not post the notification in time") {
			t.Errorf("Send = %v; want it to say osascript did not finish, wrapping context.Canceled", err)
		}
	case <-time.After(osascriptWaitDelay + 2*time.Second):
		t.Fatal("Send still waits for a hung osascript after its context ended")
	}
	err := syscall.Kill(pid, 0)
	reaped = errors.Is(err, syscall.ESRCH)
	if !reaped {
		t.Errorf("the hung osascript (pid %d) still runs: %v", pid, err)
	}
}

func waitForPID(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(data), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the stand-in osascript did not start")
	return 0
}
