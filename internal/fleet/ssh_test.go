package fleet

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/paneherd/paneherd/internal/remote"
)

// TestFollowEndedSaysWhyInALine: a follow's end is one line: paneherd's exit with its
// last words, a link lost said with ssh's own words (never "the command may have run":
// follow changes nothing), anything else as remote said it.
func TestFollowEndedSaysWhyInALine(t *testing.T) {
	conn, err := remote.NewConn(remote.Host{Label: "devbox", Dest: "devbox"}, "/tmp", "")
	if err != nil {
		t.Fatal(err)
	}
	lost := &remote.Failure{Host: "devbox", Code: 255, Reason: "lost the connection to devbox while paneherd ran there (or it was killed there): the command may have run"}
	refused := &remote.Failure{Host: "devbox", Code: 255, Reason: "cannot reach devbox: connection refused"}
	for name, c := range map[string]struct {
		err  error
		said string
		want string
	}{
		"paneherd's exit":        {&remote.ExitError{Host: "devbox", Code: 2}, "paneherd: no tmux server runs\n", "paneherd: no tmux server runs (paneherd on devbox exited 2)"},
		"its error, then usage":  {&remote.ExitError{Host: "devbox", Code: 2}, "paneherd: bad flag\n\nusage: paneherd\n  -L NAME  x\n", "paneherd: bad flag (paneherd on devbox exited 2)"},
		"it said other things":   {&remote.ExitError{Host: "devbox", Code: 1}, "bash: x\nsegfault\n", "segfault (paneherd on devbox exited 1)"},
		"lost, ssh said how":     {lost, "Timeout, server devbox not responding.", "lost the connection to devbox: it stopped answering"},
		"lost, ssh said nothing": {lost, "", "lost the connection to devbox"},
		"never connected":        {refused, "", "cannot reach devbox: connection refused"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := followEnded(conn, c.err, c.said); got == nil || got.Error() != c.want {
				t.Errorf("followEnded = %v, want %q", got, c.want)
			}
		})
	}
	if got := followEnded(conn, nil, ""); got != nil {
		t.Errorf("followEnded(nil) = %v", got)
	}
}

// TestFollowOfAnOldPaneherdIsTooOld: a paneherd from before follow says unknown command
// "follow", then its whole usage, on stderr (testdata/no-follow.stderr is that binary's,
// exit 2): the host is one whose paneherd is too old, not one that cannot be reached.
func TestFollowOfAnOldPaneherdIsTooOld(t *testing.T) {
	text, err := os.ReadFile("testdata/no-follow.stderr")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := remote.NewConn(remote.Host{Label: "devbox", Dest: "devbox"}, "/tmp", "")
	if err != nil {
		t.Fatal(err)
	}
	stderr := &stderrTail{}
	stderr.Write([]byte("pyenv: command not found\n"))
	for chunk := range slices.Chunk(text, 100) {
		stderr.Write(chunk)
	}
	ended := followEnded(conn, &remote.ExitError{Host: "devbox", Code: 2}, stderr.String())
	if !tooOld(errEnded, ended) {
		t.Errorf("followEnded = %v: not too old", ended)
	}
	if want := `paneherd: unknown command "follow" (paneherd on devbox exited 2)`; ended.Error() != want {
		t.Errorf("followEnded = %q, want %q", ended, want)
	}
	if tooOld(errEnded, errors.New("paneherd: no tmux server runs (paneherd on devbox exited 1)")) {
		t.Error("another exit is too old")
	}
}
