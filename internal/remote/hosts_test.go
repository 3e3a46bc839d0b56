package remote

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseHosts(t *testing.T) {
	got, err := ParseHosts("  devbox\tme@gpu1.lab  build:2222 ops@10.0.0.7:22\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []Host{
		{Label: "devbox", Dest: "devbox"},
		{Label: "gpu1.lab", Dest: "me@gpu1.lab"},
		{Label: "build", Dest: "build", Port: 2222},
		{Label: "10.0.0.7", Dest: "ops@10.0.0.7", Port: 22},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseHosts = %+v, want %+v", got, want)
	}
	if none, err := ParseHosts("  "); err != nil || len(none) != 0 {
		t.Errorf("ParseHosts(blank) = %v, %v", none, err)
	}
}

// TestParseHostsRefusesAmbiguousLabels: each refusal is one line that says what to do.
func TestParseHostsRefusesAmbiguousLabels(t *testing.T) {
	for name, hosts := range map[string]string{
		"the same host twice":          "devbox devbox",
		"two users, one host":          "alice@devbox bob@devbox",
		"two ports, one host":          "devbox:22 devbox:2222",
		"case aside the same":          "DevBox devbox",
		"a colon of HOST:TARGET":       "a:b:c",
		"IPv6":                         "[::1]:22",
		"a tmux format":                "#{host}",
		"a comma":                      "a,b",
		"an option for ssh":            "-oProxyCommand=x",
		"a user that is an option":     "-x@devbox",
		"no host":                      "me@",
		"no port":                      "devbox:",
		"port zero":                    "devbox:0",
		"port too big":                 "devbox:65536",
		"port with a sign":             "devbox:+22",
		"two @":                        "a@b@c",
		"a percent (ssh's tokens)":     "dev%box",
		"a dot first":                  ".hidden",
		"a brace":                      "dev}box",
		"unicode (tmux widths, ssh)":   "dévbox",
		"quote":                        "dev'box",
		"a user with a shell's syntax": "$(x)@devbox",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := ParseHosts(hosts)
			if err == nil {
				t.Fatalf("ParseHosts(%q) = %+v, want an error", hosts, got)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "@paneherd-hosts: ") {
				t.Errorf("error %q: want one line naming the option", msg)
			}
		})
	}
}
