package fleet

import (
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
		"paneherd's exit":        {&remote.ExitError{Host: "devbox", Code: 2}, `paneherd: unknown command "follow"`, `paneherd: unknown command "follow" (paneherd on devbox exited 2)`},
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
