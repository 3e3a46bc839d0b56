package notify

import (
	"errors"

	"github.com/paneherd/paneherd/internal/wire"
)

// BackendStatuses is Describe's statuses as doctor reports them (wire.About.Notify).
func BackendStatuses(statuses []Status) []wire.BackendStatus {
	out := make([]wire.BackendStatus, 0, len(statuses))
	for _, s := range statuses {
		b := wire.BackendStatus{Name: s.Backend, Found: s.Text}
		if s.Err != nil {
			var unused *ConfigError
			b.Error, b.Unused = s.Err.Error(), errors.As(s.Err, &unused)
		}
		out = append(out, b)
	}
	return out
}

// Tested is the answer for a test notification sent as s says.
func Tested(s Sent) wire.NotifyTestResult {
	r := wire.NotifyTestResult{Backend: s.Backends()}
	if err := s.Failure(); err != nil {
		r.Error = err.Error()
	}
	for _, res := range s.Results {
		b := wire.BackendResult{Name: res.Backend, Covered: res.Covered}
		if res.Err != nil {
			b.Error = res.Err.Error()
		}
		r.Backends = append(r.Backends, b)
	}
	return r
}
