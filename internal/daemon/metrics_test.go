package daemon

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/query"
	"github.com/paneherd/paneherd/internal/wire"
)

var servingAt = regexp.MustCompile(`"listen":"([^"]+)"[^\n]*"message":"serving metrics`)

// metricsAddr is where the daemon says it serves metrics (the port 0 asked for, chosen).
func (r *rig) metricsAddr() string {
	r.t.Helper()
	var addr string
	r.waitFor("the daemon serves metrics", func() bool {
		m := servingAt.FindStringSubmatch(r.log())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	})
	return addr
}

// TestMetricsRefusedOffLoopback: an address every interface would hear is refused at
// start with one line in the log; the metrics are still there to ask for.
func TestMetricsRefusedOffLoopback(t *testing.T) {
	r := newRig(t, "poll")
	pane := r.tmux.NewSession("w", "")
	r.tmux.Run("set-option", "-g", "@paneherd-metrics-listen", ":0")
	r.start()
	r.waitFor(pane+" has a state", func() bool { return r.paneState(pane) != "" })
	var m wire.Metrics
	if err := query.Ask(context.Background(), r.dir.Query(), wire.Request{Op: wire.OpMetrics}, &m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, `paneherd_panes{state="`+r.paneState(pane)+`"} 1`) {
		t.Errorf("the metrics do not count the pane (%s):\n%s", r.paneState(pane), m.Text)
	}
	log := r.log()
	if n := strings.Count(log, "loopback only"); n != 1 || strings.Contains(log, "serving metrics") {
		t.Errorf("want one refusal and nothing served; log:\n%s", tail(log, 20))
	}
}
