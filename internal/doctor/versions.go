package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/proc"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// agentVersion is the version of the agent one pane runs; "" when its process does not
// say (proc.Version).
type agentVersion struct {
	pane, pack, version string
}

// checkAgentVersions says, for each pack with panes the daemon sees, which versions of
// its CLI run against those the pack was tested with. Without a daemon's snapshot there
// are no panes to look at: the daemon line says why.
func (d Doctor) checkAgentVersions(set *packs.Set) []Check {
	hd, err := herd.Of(d.Server, d.Getenv)
	if err != nil {
		return nil
	}
	snap, err := hd.Snapshot()
	if err != nil {
		return nil
	}
	table, err := proc.Scan()
	if err != nil {
		return nil
	}
	return versionChecks(set, paneVersions(set, snap.Panes, table))
}

// paneVersions finds each agent pane's version: in the pane's process tree, the first
// process its pack recognises (as detection does, nearest the pane first) whose files say
// a version. Panes of packs that name no tested versions (the shell's) are left out.
func paneVersions(set *packs.Set, panes []wire.Pane, table proc.Table) []agentVersion {
	var out []agentVersion
	for _, pane := range panes {
		pk, err := set.Get(pane.Pack)
		if err != nil || len(pk.Tested) == 0 {
			continue
		}
		tree := table.Descendants(pane.PID)
		v := ""
		for i, pr := range packs.ProcessesOf(tree) {
			if pk.Recognises(pr) {
				if v = proc.Version(tree[i]); v != "" {
					break
				}
			}
		}
		out = append(out, agentVersion{pane: pane.ID, pack: pane.Pack, version: v})
	}
	return out
}

// versionChecks makes one line per pack: a warning when a version runs that the pack was
// not tested with (its screens may have changed), else ok; a version that could not be
// read is said, not warned of.
func versionChecks(set *packs.Set, seen []agentVersion) []Check {
	byPack := map[string]map[string][]string{} // pack -> version -> panes
	for _, a := range seen {
		if byPack[a.pack] == nil {
			byPack[a.pack] = map[string][]string{}
		}
		byPack[a.pack][a.version] = append(byPack[a.pack][a.version], a.pane)
	}
	var checks []Check
	for _, name := range set.Names() {
		if versions := byPack[name]; versions != nil {
			pk, _ := set.Get(name)
			checks = append(checks, agentVersionCheck(name, pk.Tested, versions))
		}
	}
	return checks
}

func agentVersionCheck(pack string, tested []string, versions map[string][]string) Check {
	var good, untested []string
	for _, v := range sortedKeys(versions) {
		switch {
		case v == "":
		case slices.Contains(tested, v):
			good = append(good, v+" in "+panesText(versions[v]))
		default:
			untested = append(untested, v+" in "+panesText(versions[v]))
		}
	}
	name := pack + "-version"
	unknown := ""
	if panes := versions[""]; len(panes) > 0 {
		unknown = "version unknown in " + panesText(panes) + " (its files do not say)"
	}
	switch {
	case len(untested) > 0:
		return warn(name, fmt.Sprintf("%s: not among the versions the %s pack was tested with (%s)",
			strings.Join(untested, ", "), pack, strings.Join(tested, ", ")),
			"its screens may read wrong; send 'paneherd record' frames if they do")
	case len(good) > 0 && unknown != "":
		return ok(name, strings.Join(good, ", ")+", tested; "+unknown)
	case len(good) > 0:
		return ok(name, strings.Join(good, ", ")+", tested")
	}
	return ok(name, unknown)
}

// panesText names one pane, or counts several.
func panesText(panes []string) string {
	if len(panes) == 1 {
		return panes[0]
	}
	return fmt.Sprintf("%d panes", len(panes))
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
