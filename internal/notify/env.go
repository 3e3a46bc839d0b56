package notify

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/paneherd/paneherd/internal/tmux"
)

// envTTL is how long tmux's environment is trusted before it is read again: a client
// attaching from a desktop session updates it (update-environment) at any time.
const envTTL = 30 * time.Second

// TmuxEnv returns a reader of tmux's environment: the global one, overlaid with the
// environments of the sessions that have clients attached, where update-environment puts
// what the person's desktop session has (DBUS_SESSION_BUS_ADDRESS, WAYLAND_DISPLAY).
func TmuxEnv(s tmux.Server) func(ctx context.Context) map[string]string {
	var mu sync.Mutex
	var cached map[string]string
	var at time.Time
	return func(ctx context.Context) map[string]string {
		mu.Lock()
		defer mu.Unlock()
		if cached != nil && time.Since(at) < envTTL {
			return cached
		}
		cached, at = readEnv(ctx, s), time.Now()
		return cached
	}
}

func readEnv(ctx context.Context, s tmux.Server) map[string]string {
	cmds := [][]string{{"show-environment", "-g"}}
	if clients, err := Clients(ctx, s); err == nil {
		seen := map[string]bool{}
		for _, c := range clients {
			if !seen[c.Session] {
				seen[c.Session] = true
				cmds = append(cmds, []string{"show-environment", "-t", c.Session})
			}
		}
	}
	out, _ := s.Run(ctx, nil, tmux.Chain(cmds)...)
	env := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if name, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(name, "-") {
			env[name] = value
		}
	}
	return env
}
