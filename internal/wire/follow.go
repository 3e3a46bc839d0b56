package wire

import (
	"time"
)

// FollowProtocol is the version of the stream `paneherd follow --json` writes. A change
// that an older reader would misread takes a new version; a field added is no change.
const FollowProtocol = 1

// FollowOldest is the oldest version of the stream this paneherd still reads.
const FollowOldest = 1

// The kinds of follow lines (FollowLine.Type).
const (
	// FollowSnapshot is the first line, and only the first: the protocol, the paneherd
	// writing it, its heartbeat and every pane of its server.
	FollowSnapshot = "snapshot"
	// FollowChange: panes that changed or came (whole records), and the ids of those gone.
	FollowChange = "change"
	// FollowHeartbeat: nothing changed for a heartbeat; the daemon answered all the same.
	FollowHeartbeat = "heartbeat"
)

// FollowLine is one line of `paneherd follow --json`: one JSON object per line, each
// written whole. The panes are the server's own; panes the daemon follows on other
// machines (their Host set) never go on.
type FollowLine struct {
	Type string `json:"type"`
	// The snapshot line's only:
	Protocol int    `json:"protocol,omitempty"`
	Version  string `json:"version,omitempty"` // the paneherd writing the stream
	// HeartbeatMS is how often, in milliseconds, a line comes at least: a reader that
	// hears nothing for longer is not hearing the daemon.
	HeartbeatMS int64 `json:"heartbeat_ms,omitempty"`

	At    time.Time `json:"at"`
	Panes []Pane    `json:"panes,omitempty"` // snapshot: every pane; change: those that changed or came
	Gone  []string  `json:"gone,omitempty"`  // change: the ids of panes gone
}

// Heartbeat is the snapshot line's heartbeat as a duration.
func (l FollowLine) Heartbeat() time.Duration { return time.Duration(l.HeartbeatMS) * time.Millisecond }

// FollowDiff is the change line that takes a reader from before to after (panes by id),
// and whether there is any change.
func FollowDiff(before, after []Pane, at time.Time) (FollowLine, bool) {
	line := FollowLine{Type: FollowChange, At: at}
	old := make(map[string]Pane, len(before))
	for _, p := range before {
		old[p.ID] = p
	}
	for _, p := range after {
		if was, ok := old[p.ID]; !ok || was != p {
			line.Panes = append(line.Panes, p)
		}
		delete(old, p.ID)
	}
	for _, p := range before {
		if _, gone := old[p.ID]; gone {
			line.Gone = append(line.Gone, p.ID)
		}
	}
	return line, len(line.Panes) > 0 || len(line.Gone) > 0
}
