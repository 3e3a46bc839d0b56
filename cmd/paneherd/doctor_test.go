package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDoctorCommandLine(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"help", []string{"doctor", "-h"}, exitOK, "usage: paneherd doctor [--json]"},
		{"an argument", []string{"doctor", "now"}, exitUsage, ""},
		{"an unknown flag", []string{"doctor", "--fix"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := packsEnv(t)
			var stdout bytes.Buffer
			code, stderr := runWith(e, &stdout, tt.args...)
			if code != tt.code || !strings.HasPrefix(stdout.String(), tt.stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout.String(), stderr, tt.code, tt.stdout)
			}
		})
	}
}

// TestDoctorWithoutServer: no tmux server at the socket: the JSON report says why and is
// not ok, exit 1, and the doctor created nothing (no state directory, no daemon).
func TestDoctorWithoutServer(t *testing.T) {
	home, sockets := t.TempDir(), t.TempDir()
	e := &env{stdin: strings.NewReader(""), getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	var stdout bytes.Buffer
	code, stderr := runWith(e, &stdout, "-S", filepath.Join(sockets, "none"), "doctor", "--json")
	var report struct {
		OK     bool
		Checks []struct{ Status, Name, Found, Fix string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout.String())
	}
	if code != exitError || report.OK || !strings.Contains(stderr, "checks failed") {
		t.Errorf("exit %d, ok %v, stderr %q; want 1, false, how many failed", code, report.OK, stderr)
	}
	if len(report.Checks) == 0 || report.Checks[0].Name != "tmux" || report.Checks[0].Status != "fail" ||
		!strings.Contains(report.Checks[0].Found, "no server running") {
		t.Errorf("first check %+v; want tmux failing: no server", report.Checks)
	}
	for _, dir := range []string{home, sockets} {
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("doctor wrote into %s: %v", dir, entries)
		}
	}
}
