package notify

import (
	"context"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

// Another machine's pane is named with its host in what a person reads, and is another
// pane than this server's of the same id for dedupe and focus.
func TestFromTransitionNamesTheHost(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := wire.Pane{ID: "%3", Host: "devbox", Name: "api", Session: "main", WindowIndex: 1, State: "BUSY", Since: at.Add(-time.Minute)}
	x, ok := FromTransition(p, wire.Transition{PaneID: "%3", At: at, From: "BUSY", To: "NEEDS_CONFIRMATION", Summary: "Run ls?"})
	if !ok {
		t.Fatal("no notification")
	}
	if x.Title != "devbox/api needs your confirmation" || x.PaneID != "devbox/%3" || x.Target != "devbox:main:1.0" || x.Body != "Run ls?\nin devbox:main:1.0" {
		t.Errorf("notification %+v", x)
	}
	local := p
	local.Host = ""
	if y, _ := FromTransition(local, wire.Transition{PaneID: "%3", At: at, From: "BUSY", To: "NEEDS_CONFIRMATION"}); y.PaneID != "%3" || y.Title != "api needs your confirmation" {
		t.Errorf("a local pane's notification %+v", y)
	}
}

// A person looking at this server's %3 is not looking at devbox's %3: its dialog is
// news all the same.
func TestRemotePaneIsNotTheWatchedLocalOne(t *testing.T) {
	n := New(nil, nil, Config{})
	n.Clients = func(context.Context) ([]Client, error) {
		return []Client{{PaneID: "%3", Focused: true, FocusKnown: true}}, nil
	}
	at := time.Now()
	local := wire.Pane{ID: "%3", Name: "api", State: "BUSY", Since: at.Add(-time.Minute)}
	remote := local
	remote.Host = "devbox"
	tr := wire.Transition{PaneID: "%3", At: at, From: "BUSY", To: "NEEDS_CONFIRMATION"}
	var burst []Notification
	for _, p := range []wire.Pane{local, remote} {
		x, _ := FromTransition(p, tr)
		burst = append(burst, x)
	}
	left := n.unwatched(context.Background(), burst)
	if len(left) != 1 || left[0].Name != "devbox/api" {
		t.Errorf("left to notify: %+v; want devbox's only", left)
	}
}
