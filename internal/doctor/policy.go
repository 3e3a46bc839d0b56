package doctor

import (
	"errors"
	"fmt"

	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/policy"
)

// checkPolicy says whether dialogs are answered by rules: @paneherd-policy, and the
// policy file as the daemon reads it (at its start and on each reload).
func (d Doctor) checkPolicy(values options.Values) Check {
	return policyCheck(options.Policy.In(values), policy.Path(d.Getenv))
}

// policyCheck: a file that does not load is a failure, since with it on nothing is
// answered automatically, which is easy to miss; on without a file, a warning.
func policyCheck(mode, path string) Check {
	if mode == "off" {
		return ok("policy", "off: a person answers every dialog (@paneherd-policy)")
	}
	if path == "" {
		return warn("policy", mode+", but neither XDG_CONFIG_HOME nor HOME is set, so there is no policy file: nothing is answered automatically",
			"set HOME, or set @paneherd-policy off")
	}
	f, err := policy.Load(path)
	switch {
	case errors.Is(err, policy.ErrNone):
		return warn("policy", mode+", but there is no "+path+": nothing is answered automatically",
			"write one (docs/policy.md), then "+applyFix+"; or set @paneherd-policy off")
	case err != nil:
		return fail("policy", mode+", but the file is broken ("+err.Error()+") and nothing is answered automatically",
			"fix it (paneherd policy check), then "+applyFix)
	}
	return ok("policy", fmt.Sprintf("%s with %s from %s", mode, plural(len(f.Rules), "rule"), path))
}
