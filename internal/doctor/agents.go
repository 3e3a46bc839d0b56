package doctor

import (
	"path/filepath"

	"github.com/paneherd/paneherd/internal/agenthooks"
)

// checkAgentHooks says, per agent, whether paneherd's hooks are in its settings
// (agenthooks.StatusOf, what `paneherd hooks status` says).
func (d Doctor) checkAgentHooks() []Check {
	var checks []Check
	for _, agent := range agenthooks.Agents {
		s, err := agenthooks.StatusOf(agent, d.Binary, d.Getenv)
		checks = append(checks, agentHookCheck(agent, s, err, exists(filepath.Dir(s.File))))
	}
	return checks
}

// agentHookCheck: hooks are optional (the screen is read either way; hooks make a
// state show sooner and surer), so their absence is a warning, and nothing at all for
// an agent whose settings directory does not exist: it is not used here.
func agentHookCheck(agent string, s agenthooks.Status, err error, dirExists bool) Check {
	name := agent + "-hooks"
	switch {
	case err != nil:
		return warn(name, err.Error(), "fix the file (paneherd leaves one it cannot read alone), then 'paneherd hooks install "+agent+"'")
	case s.Installed:
		return ok(name, s.File+": "+s.Detail)
	case !dirExists:
		return ok(name, "not installed: no "+filepath.Dir(s.File)+", so "+agent+" is not used here")
	}
	return warn(name, s.File+": "+s.Detail,
		"'paneherd hooks install "+agent+"' (optional) makes its states show sooner and surer")
}
