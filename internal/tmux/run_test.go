package tmux

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		out          string
		major, minor int
		wantErr      bool
	}{
		{"tmux 3.3a\n", 3, 3, false},
		{"tmux 3.4", 3, 4, false},
		{"tmux next-3.5\n", 3, 5, false},
		{"3.3a\n", 3, 3, false}, // a server's #{version}
		{"tmux 2.9a", 2, 9, false},
		{"tmux 10.12", 10, 12, false},
		{"tmux master", 0, 0, true},
		{"tmux openbsd-7.4", 0, 0, true},
		{"tmux 3", 0, 0, true},
		{"", 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.out, func(t *testing.T) {
			major, minor, err := ParseVersion(tt.out)
			if tt.wantErr {
				if !errors.Is(err, ErrVersion) {
					t.Errorf("err = %v, want ErrVersion", err)
				}
				return
			}
			if err != nil || major != tt.major || minor != tt.minor {
				t.Errorf("= %d, %d, %v; want %d, %d", major, minor, err, tt.major, tt.minor)
			}
		})
	}
}

func TestLiteralArg(t *testing.T) {
	tests := map[string]string{
		"plain":   "plain",
		"a;":      `a\;`,
		`a\;`:     `a\\;`,
		";":       `\;`,
		"a;b":     "a;b",
		"":        "",
		"#{x};  ": "#{x};  ",
	}
	for in, want := range tests {
		if got := LiteralArg(in); got != want {
			t.Errorf("LiteralArg(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScript(t *testing.T) {
	got := Script([][]string{{"display-message", "-p", "a b;"}, {"send-keys", "-t", "%1", "Enter"}})
	want := `display-message "-p" "a b;" ; send-keys "-t" "%1" "Enter"`
	if got != want {
		t.Errorf("Script = %s, want %s", got, want)
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		msg  string
		want error
	}{
		{"no server running on /tmp/tmux-0/x", ErrNoServer},
		{"error connecting to /tmp/tmux-0/q (No such file or directory)", ErrNoServer},
		{"server exited unexpectedly", ErrNoServer},
		{"can't find pane: %99", ErrNoPane},
		{"unknown command: frob", nil},
	}
	for _, tt := range tests {
		if got := classify(tt.msg); got != tt.want {
			t.Errorf("classify(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}

// TestTimeoutBoundsAHungServer: a command with no deadline of its own ends after the
// server's Timeout (a hung tmux must not hold the daemon).
func TestTimeoutBoundsAHungServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := Server{Name: "hung", Timeout: 200 * time.Millisecond}
	start := time.Now()
	_, err := s.Run(context.Background(), nil, "list-sessions")
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("Run on a hung server: %v after %v; want an error well before the server's 30 s", err, time.Since(start))
	}
}
