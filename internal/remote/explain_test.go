package remote

import (
	"strings"
	"testing"
)

// TestExplain: OpenSSH's own words for each failure become one line that names the host
// and what to do.
func TestExplain(t *testing.T) {
	hosts, err := ParseHosts("me@devbox:2222")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := NewConn(hosts[0], "/run/ph", "-F '/home/me/fleet config'")
	if err != nil {
		t.Fatal(err)
	}
	try := "ssh -F '/home/me/fleet config' -p 2222 me@devbox"
	cases := map[string]struct {
		code   int
		stderr string
		want   string
	}{
		"unknown host key": {255, "No ED25519 host key is known for [devbox]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\n",
			"the host key of devbox is not known, and paneherd's ssh never asks (BatchMode): run `" + try + "` once yourself to check and accept it"},
		"changed host key": {255, "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\r\nHost key verification failed.\r\n",
			"the host key of devbox has CHANGED since ssh last saw it (a reinstalled host, or someone in between): check with its owner, then run `" + try + "` yourself for ssh's advice"},
		"permission denied": {255, "me@devbox: Permission denied (publickey,password).\r\n",
			"devbox refused the login: paneherd's ssh never asks for a password or a passphrase (BatchMode), so it needs a key without one or loaded in ssh-agent (ssh-add); `" + try + " -o BatchMode=yes true` shows whether it can"},
		"too many keys": {255, "Received disconnect from 10.1.1.1 port 2222:2: Too many authentication failures\r\nDisconnected from 10.1.1.1 port 2222\r\n",
			"devbox refused the login after too many keys were offered: name the one for it in ~/.ssh/config (IdentityFile, IdentitiesOnly yes)"},
		"refused":     {255, "ssh: connect to host devbox port 2222: Connection refused\r\n", "cannot reach devbox: connection refused (no sshd listens on that port, or the host is still starting)"},
		"timed out":   {255, "ssh: connect to host devbox port 2222: Connection timed out\r\n", "cannot reach devbox: the connection timed out (the host is down, or a firewall drops it)"},
		"banner":      {255, "Connection timed out during banner exchange\r\nConnection to devbox port 2222 timed out\r\n", "cannot reach devbox: the connection timed out (the host is down, or a firewall drops it)"},
		"no route":    {255, "ssh: connect to host devbox port 2222: No route to host\r\n", "cannot reach devbox: no route to it (the host or the network is down)"},
		"unreachable": {255, "ssh: connect to host devbox port 2222: Network is unreachable\r\n", "cannot reach devbox: no route to it (the host or the network is down)"},
		"no name":     {255, "ssh: Could not resolve hostname devbox: Name or service not known\r\n", "cannot reach devbox: its name is not resolved: make it a Host in ~/.ssh/config, or use a name DNS knows"},
		"no name, macOS": {255, "ssh: Could not resolve hostname devbox: nodename nor servname provided, or not known\r\n",
			"cannot reach devbox: its name is not resolved: make it a Host in ~/.ssh/config, or use a name DNS knows"},
		"closed before login": {255, "kex_exchange_identification: read: Connection reset by peer\r\nConnection reset by 10.1.1.1 port 2222\r\n",
			"devbox closed the connection before login (sshd's MaxStartups, AllowUsers, or a firewall): `" + try + "` shows ssh's own words"},
		"keep-alives unanswered": {255, "Timeout, server devbox not responding.\r\n", "lost the connection to devbox: it stopped answering"},
		"closed":                 {255, "Connection to devbox closed by remote host.\r\n", "lost the connection to devbox"},
		"bad option":             {255, "command-line line 0: Bad configuration option: frobnicate\r\n", "ssh's configuration for devbox is wrong: command-line line 0: Bad configuration option: frobnicate"},
		"no paneherd": {127, "Welcome!\n" + noPaneherd + " in PATH (/usr/bin:/bin), ~/.local/bin, ~/go/bin or the tmux plugin directories\n",
			"no paneherd on devbox: install it there (install.sh in a clone, or the tmux plugin); it is looked for in the PATH `" + try + "` gets, ~/.local/bin, ~/go/bin and the tmux plugin directories"},
		"127 from an rc file": {127, "bash: pyenv: command not found\n", "paneherd never started on devbox: its login shell ended first with 127 (an rc file that exits?): bash: pyenv: command not found"},
		"anything else":       {255, "first line\r\nsecond\tline \x1b[31mred\x1b[0m\r\n\r\n", "ssh to devbox failed: second line [31mred[0m"},
		"nothing said":        {255, "", "ssh to devbox failed: it said nothing"},
		"timed out past a stale socket": {255, "Control socket connect(/run/ph/0123abcd): Connection refused\r\nConnection timed out during banner exchange\r\nConnection to devbox port 2222 timed out\r\n",
			"cannot reach devbox: the connection timed out (the host is down, or a firewall drops it)"},
		"failed past a master that did not answer": {255, "mux_client_hello_exchange: read packet failed: Connection reset by peer\r\nmuxclient: master hello exchange failed\r\nfirst line\r\n",
			"ssh to devbox failed: first line"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := conn.Explain(c.code, c.stderr)
			if got != c.want {
				t.Errorf("Explain(%d, %q)\n got %s\nwant %s", c.code, c.stderr, got, c.want)
			}
			if strings.ContainsAny(got, "\r\n\x1b") {
				t.Errorf("not one clean line: %q", got)
			}
		})
	}
}

func TestExplainCutsALongLine(t *testing.T) {
	conn, err := NewConn(Host{Label: "devbox", Dest: "devbox"}, "/run/ph", "")
	if err != nil {
		t.Fatal(err)
	}
	got := conn.Explain(255, strings.Repeat("é", 300))
	if len(got) > 250 || !strings.HasSuffix(got, "…") {
		t.Errorf("Explain = %q (%d bytes), want it cut", got, len(got))
	}
}

func TestNewConnRefuses(t *testing.T) {
	devbox := Host{Label: "devbox", Dest: "devbox"}
	for name, c := range map[string]struct{ dir, options, want string }{
		"a relative directory":  {"run/ph", "", "must be absolute"},
		"a variable":            {"/run/${USER}", "", "would read ${"},
		"a directory too long":  {"/" + strings.Repeat("d", 45), "", "over the 103 a unix socket's can hold: use a shorter directory"},
		"a host in the options": {"/run/ph", "-F cfg devbox", `"devbox" is not an ssh option`},
		"a command":             {"/run/ph", "-- true", `"--" is not an ssh option`},
		"a value missing":       {"/run/ph", "-o", `"-o" wants a value after it`},
		"paneherd's own -S":     {"/run/ph", "-S /tmp/sock", "paneherd sets -S's part itself"},
		"a master":              {"/run/ph", "-CM", "paneherd sets -M's part itself"},
		"no stdin":              {"/run/ph", "-4n", "cannot take -n: it would empty paneherd's stdin"},
		"quiet":                 {"/run/ph", "-q", "cannot take -q: it would hide ssh's errors"},
		"verbose":               {"/run/ph", "-C -vvv", "cannot take -v: its debug lines would bury ssh's errors"},
		"a log file":            {"/run/ph", "-E ssh.log", "cannot take -E: it would send ssh's errors to a file"},
		"syslog":                {"/run/ph", "-y", "cannot take -y: it would send ssh's errors to syslog"},
		"backgrounding":         {"/run/ph", "-fN", "paneherd sets -f's part itself"},
		"shell syntax":          {"/run/ph", "-o $(x)", "@paneherd-ssh: "},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewConn(devbox, c.dir, c.options)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("NewConn(%q, %q) = %v, want an error with %q", c.dir, c.options, err, c.want)
			}
		})
	}
	for _, ok := range []struct{ dir, options string }{
		{"/" + strings.Repeat("d", 44), ""},
		{"/run/ph", "-F ~/.ssh/fleet -o IdentityFile=x -i key -p 22 -4 -C -oServerAliveInterval=30 -J jump"},
	} {
		if _, err := NewConn(devbox, ok.dir, ok.options); err != nil {
			t.Errorf("NewConn(%q, %q): %v", ok.dir, ok.options, err)
		}
	}
}

func TestControlPath(t *testing.T) {
	for dir, want := range map[string]string{
		"/run/ph":        "/run/ph/%C",
		"/run/100%/x/":   "/run/100%%/x/%C",
		"/run/a b":       `"/run/a b/%C"`,
		`/run/q"u'o\te#`: `"/run/q\"u'o\\te#/%C"`,
	} {
		if got, err := controlPath(dir); err != nil || got != want {
			t.Errorf("controlPath(%q) = %s, %v; want %s", dir, got, err, want)
		}
	}
}
