package tmux

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestServerFromEnv(t *testing.T) {
	tmuxEnv := map[string]string{"TMUX": "/tmp/tmux-1000/work,4242,3"}
	tests := []struct {
		name       string
		flagName   string
		flagSocket string
		vars       map[string]string
		want       Server
	}{
		{"nothing is the default server", "", "", nil, Server{}},
		{"$TMUX gives the socket", "", "", tmuxEnv, Server{Socket: "/tmp/tmux-1000/work"}},
		{"-L beats $TMUX", "other", "", tmuxEnv, Server{Name: "other"}},
		{"-S beats $TMUX", "", "/s/sock", tmuxEnv, Server{Socket: "/s/sock"}},
		{"both flags kept", "n", "/s/sock", nil, Server{Name: "n", Socket: "/s/sock"}},
		{"empty socket in $TMUX", "", "", map[string]string{"TMUX": ",1,2"}, Server{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ServerFromEnv(tt.flagName, tt.flagSocket, env(tt.vars)); got != tt.want {
				t.Errorf("ServerFromEnv = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSocketPath(t *testing.T) {
	tmp := t.TempDir()
	tests := []struct {
		name   string
		server Server
		vars   map[string]string
		want   string
	}{
		{"default", Server{}, nil, "/tmp/tmux-1000/default"},
		{"named", Server{Name: "work"}, nil, "/tmp/tmux-1000/work"},
		{"TMUX_TMPDIR", Server{Name: "w"}, map[string]string{"TMUX_TMPDIR": "/run/x"}, "/run/x/tmux-1000/w"},
		{"socket wins", Server{Name: "w", Socket: "/a/b"}, map[string]string{"TMUX_TMPDIR": "/run/x"}, "/a/b"},
		{"symlinked dir resolved", Server{}, map[string]string{"TMUX_TMPDIR": symlinkedTmpdir(t, tmp)},
			filepath.Join(tmp, "real", "tmux-1000", "default")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := socketPath(tt.server, env(tt.vars), 1000); got != tt.want {
				t.Errorf("socketPath = %q, want %q", got, tt.want)
			}
		})
	}
}

// symlinkedTmpdir makes tmp/link -> tmp/real with a tmux-1000 dir inside,
// and returns the link.
func symlinkedTmpdir(t *testing.T, tmp string) string {
	t.Helper()
	real := filepath.Join(tmp, "real")
	mkdirAll(t, filepath.Join(real, "tmux-1000"))
	link := filepath.Join(tmp, "link")
	symlink(t, real, link)
	return link
}

func TestKey(t *testing.T) {
	a := Server{Socket: "/tmp/tmux-0/work"}
	tests := []struct {
		name   string
		server Server
	}{
		{"plain", a},
		{"odd name", Server{Socket: "/tmp/x/my sock:#1"}},
		{"hidden", Server{Socket: "/tmp/.."}},
		{"long", Server{Socket: "/tmp/" + strings.Repeat("n", 200)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := tt.server.Key()
			if key != tt.server.Key() {
				t.Errorf("Key not stable")
			}
			if len(key) > 48 || key[0] == '.' || strings.ContainsFunc(key, func(r rune) bool { return !isSafe(byte(r)) || r > 127 }) {
				t.Errorf("Key %q is not a short safe file name", key)
			}
		})
	}
	if got := a.Key(); !strings.HasPrefix(got, "work-") {
		t.Errorf("Key = %q, want the socket name first", got)
	}
	if a.Key() == (Server{Socket: "/tmp/tmux-1/work"}).Key() {
		t.Errorf("same name in different dirs gives the same key")
	}
}

func TestArgs(t *testing.T) {
	tests := []struct {
		name   string
		server Server
		want   []string
	}{
		{"default names itself so $TMUX is not followed", Server{}, []string{"-u", "-L", "default", "ls"}},
		{"name", Server{Name: "w"}, []string{"-u", "-L", "w", "ls"}},
		{"socket wins", Server{Name: "w", Socket: "/s"}, []string{"-u", "-S", "/s", "ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.server.Args("ls"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Args = %q, want %q", got, tt.want)
			}
		})
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
