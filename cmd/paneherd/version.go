package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// version is set at build time by install.sh and GoReleaser (-ldflags "-X main.version=...").
var version = ""

var cmdVersion = command{
	name:    "version",
	summary: "print the version",
	usage:   "version",
	about: `Prints the version: a release's, the module version of go install, or dev and the commit.
Also paneherd --version, or -V.`,
	flags: noFlags(runVersion),
}

func runVersion(ctx context.Context, e *env, args []string) error {
	_, err := fmt.Fprintf(e.stdout, "paneherd %s\n", selfVersion())
	return err
}

// selfVersion is what this paneherd says it is, wherever it says it: version, the MCP
// server's implementation, the daemon's answer to doctor, and doctor itself.
func selfVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf is the version paneherd reports: the one stamped at build time; else the module
// version Go records for `go install …/cmd/paneherd@v0.4.0` (without its v, as in the
// release's archive names); else dev, with the commit when Go recorded one (a build in a
// checkout, where the module version is "(devel)"). bi may be nil.
func versionOf(stamped string, bi *debug.BuildInfo) string {
	if stamped != "" {
		return stamped
	}
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "dev-" + s.Value[:12]
		}
	}
	return "dev"
}
