package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "518a32a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7"}}
	tests := []struct {
		name    string
		stamped string
		bi      *debug.BuildInfo
		want    string
	}{
		{"stamped by ldflags wins", "0.4.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "0.4.0"},
		{"go install at a tag", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "0.4.0"},
		{"go install at a pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20251125171400-518a32a1b2c3"}}, "0.0.0-20251125171400-518a32a1b2c3"},
		{"checkout build with a commit", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "dev-518a32a1b2c3"},
		{"checkout build without vcs", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no module version", "", &debug.BuildInfo{Settings: rev}, "dev-518a32a1b2c3"},
		{"a revision too short", "", &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, "dev"},
		{"no build info", "", nil, "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := versionOf(tt.stamped, tt.bi); got != tt.want {
				t.Errorf("versionOf(%q, …) = %q, want %q", tt.stamped, got, tt.want)
			}
		})
	}
}
