package plugin

import (
	"testing"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/tmux"
)

// TestPushSegmentEscapesTheJob: inside #{?...} a ',' or '}' of a path would end the
// condition, and strftime would read its '%'; '#' and quotes are the shell word's.
func TestPushSegmentEscapesTheJob(t *testing.T) {
	p := Plugin{Server: tmux.Server{Socket: "/tmp/s,1"}, Binary: "/opt/a,b}c 50% d#e'f/paneherd", Values: options.Defaults()}
	want := `#{?#{e|<|:%s,#{@paneherd_lease}},#{@paneherd_status},` +
		`#{?#('/opt/a#,b#}c 50%% d##e'\''f/paneherd' -S '/tmp/s#,1' bar),#{@paneherd_status},[paneherd: off]}}`
	if got := p.Segment(); got != want {
		t.Errorf("segment =\n %s\nwant\n %s", got, want)
	}
}

func TestStatusIntervalOnlyFromTmuxDefault(t *testing.T) {
	p := Plugin{Binary: "/b/paneherd", Values: options.Defaults()}
	for _, tc := range []struct {
		name, interval, right string
		lowered               bool
	}{
		{"tmux's default", "15", "#{paneherd_status}", true},
		{"the user's own", "2", "#{paneherd_status}", false},
		{"no placeholder", "15", "%H:%M", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lowered := false
			for _, c := range p.statusCommands(current{right: tc.right, interval: tc.interval}) {
				if c[len(c)-2] == "status-interval" {
					lowered = c[len(c)-1] == guardInterval
				}
			}
			if lowered != tc.lowered {
				t.Errorf("status-interval lowered: %v, want %v", lowered, tc.lowered)
			}
		})
	}
}
