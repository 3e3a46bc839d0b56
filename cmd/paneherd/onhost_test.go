package main

import (
	"reflect"
	"testing"
)

// TestHostArgs: a command's line for a host holds the flags given, but those handled
// here, then "--", so a target like "-x" is no flag there.
func TestHostArgs(t *testing.T) {
	c, _ := commandNamed("send")
	fs, _ := c.flagSet()
	if err := fs.Parse([]string{"--file", "/local/prompt", "--client", "/dev/pts/3", "--json", "--envelope", "job-7", "--reason", "a; b"}); err != nil {
		t.Fatal(err)
	}
	got := hostArgs(fs, []string{"file", "buffer", "client"}, []string{"--file=-"}, "-x")
	want := []string{"send", "--envelope=job-7", "--json=true", "--reason=a; b", "--file=-", "--", "-x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hostArgs = %q, want %q", got, want)
	}
}
