package doctor

import (
	"errors"
	"fmt"

	"github.com/paneherd/paneherd/packs"
)

// checkPacks loads the packs as the daemon does (builtins, then the user's directory)
// and reports each user pack that does not load; it returns them too, for the version lines.
func (d Doctor) checkPacks() ([]Check, *packs.Set) {
	dir := packs.UserDir(d.Getenv)
	set := packs.Load(dir)
	return packChecks(set, dir), set
}

// packChecks: a broken user pack is a failure, since the daemon then goes on without it
// (with the builtin of that name, if any), which is easy to miss.
func packChecks(set *packs.Set, dir string) []Check {
	builtin := 0
	for _, p := range set.All() {
		if p.Source == packs.SourceBuiltin {
			builtin++
		}
	}
	found := fmt.Sprintf("%d loaded: %d builtin, %d of yours from %s", len(set.All()), builtin, len(set.All())-builtin, dir)
	checks := []Check{ok("packs", found)}
	for _, problem := range set.Problems {
		checks = append(checks, packProblem(problem))
	}
	return checks
}

func packProblem(problem error) Check {
	var pe *packs.Error
	switch {
	case errors.As(problem, &pe) && pe.File == packs.SourceBuiltin:
		return fail("packs", "a builtin pack does not load: "+problem.Error(), "a bug in this paneherd build: report it")
	case errors.As(problem, &pe):
		return fail("packs", problem.Error()+" (this pack is not used; a builtin of its name is, if any)",
			"fix it (paneherd packs check "+pe.File+"), then 'paneherd restart'")
	}
	return fail("packs", problem.Error(), "check the packs directory, then 'paneherd restart'")
}
