// Package dbustest gives tests a real D-Bus session bus of their own, with a notification
// server on it that records what it is sent: the person's desktop is the one edge paneherd
// cannot run in a test, and a private bus is the nearest real thing.
package dbustest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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

// Bus starts a dbus-daemon for the test, stopped when it ends, and returns its address.
func Bus(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		t.Fatal("dbus-daemon is not installed (Debian: apt-get install dbus-daemon); .ci/run installs it")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	conf := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(sessionBusConfig, sock)), 0o644); err != nil {
		t.Fatal(err)
	}
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

// Notification is one Notify call the server received.
type Notification struct {
	Summary, Body string
	Urgency       byte // 0 low, 1 normal, 2 critical
}

// Server implements org.freedesktop.Notifications and records the calls. Its exported
// methods are the D-Bus interface; tests read Received.
type Server struct {
	mu    sync.Mutex
	calls []Notification
}

// Serve registers a notification server on the bus at addr, for the rest of the test.
func Serve(t testing.TB, addr string) *Server {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connect to the test bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &Server{}
	if err := conn.Export(s, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own org.freedesktop.Notifications: %v (reply %v)", err, reply)
	}
	return s
}

// Received returns the notifications received so far.
func (s *Server) Received() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Notification(nil), s.calls...)
}

// Notify is the D-Bus method that shows a notification.
func (s *Server) Notify(app string, replaces uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	s.calls = append(s.calls, Notification{summary, body, urgency})
	return uint32(len(s.calls)), nil
}

// GetCapabilities is the D-Bus method that lists what the server supports.
func (s *Server) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

// GetServerInformation is the D-Bus method that names the server.
func (s *Server) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "paneherd-test", "paneherd", "1", "1.2", nil
}

// CloseNotification is the D-Bus method that withdraws a notification.
func (s *Server) CloseNotification(id uint32) *dbus.Error { return nil }
