package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// sessionBusConfig is a session bus with no service directories: nothing can be
// activated on it, so the only notification server is the test's own.
const sessionBusConfig = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// privateBus starts a dbus-daemon for the test and returns its address.
func privateBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Fatal("dbus-daemon is not installed (Debian: apt-get install dbus-daemon); .ci/run installs it")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	conf := filepath.Join(dir, "bus.conf")
	os.WriteFile(conf, []byte(fmt.Sprintf(sessionBusConfig, sock)), 0o644)
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--print-address=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// notification is one Notify call the test server received.
type notification struct {
	Summary, Body string
	Urgency       byte
}

// notificationServer implements org.freedesktop.Notifications on a bus and records calls.
type notificationServer struct {
	mu    sync.Mutex
	calls []notification
}

func (s *notificationServer) Notify(app string, replaces uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	s.calls = append(s.calls, notification{summary, body, urgency})
	return uint32(len(s.calls)), nil
}

func (s *notificationServer) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (s *notificationServer) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "paneherd-test", "paneherd", "1", "1.2", nil
}

func (s *notificationServer) CloseNotification(id uint32) *dbus.Error { return nil }

func (s *notificationServer) received() []notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]notification(nil), s.calls...)
}

// serveNotifications registers a notification server on the bus at addr.
func serveNotifications(t *testing.T, addr string) *notificationServer {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &notificationServer{}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v (reply %v)", err, reply)
	}
	return s
}

// dbusDaemons counts dbus-daemon processes, to prove none was autolaunched.
func dbusDaemons() int { return countProcesses("dbus-daemon") }

// paneShows makes a pane show a fixture, replacing what it showed.
func (r *rig) paneShows(t *testing.T, pane, rel string) {
	t.Helper()
	r.tmux.Run("respawn-pane", "-k", "-t", pane, showCommand(fixture(t, rel)))
}

var _ = time.Second
