package e2e

import "testing"

// dbusDaemons counts dbus-daemon processes, to prove none was autolaunched.
func dbusDaemons() int { return countProcesses("dbus-daemon") }

// paneShows makes a pane show a fixture, replacing what it showed.
func (r *rig) paneShows(t *testing.T, pane, rel string) {
	t.Helper()
	r.tmux.Run("respawn-pane", "-k", "-t", pane, showCommand(fixture(t, rel)))
}
