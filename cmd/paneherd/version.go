package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at build time by install.sh (-ldflags "-X main.version=...").
var version = ""

func runVersion(ctx context.Context, e *env, args []string) error {
	v := version
	if v == "" {
		v = "dev"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v = "dev-" + s.Value[:12]
				}
			}
		}
	}
	_, err := fmt.Fprintf(e.stdout, "paneherd %s\n", v)
	return err
}
