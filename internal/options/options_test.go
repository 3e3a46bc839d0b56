package options

import (
	"time"

	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/docsection"
	"github.com/paneherd/paneherd/internal/notify"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/internal/tmux/tmuxtest"
)

func TestLoadReadsSetOptionsExactly(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "")
	values := map[string]string{
		"format":      `[{name} "q" 'x' \ é $HOME %H #{pane_id};]`,
		"style-ready": "",
		"tick":        "250ms",
	}
	for name, v := range values {
		h.Run("set-option", "-g", Prefix+name, v)
	}
	got, err := Load(context.Background(), h.Server)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range values {
		if got.get(name) != want {
			t.Errorf("%s = %q, want %q", name, got.get(name), want)
		}
	}
	if got.get("style-busy") != "fg=yellow" {
		t.Errorf("an unset option lost its default: %q", got.get("style-busy"))
	}
}

var update = flag.Bool("update", false, "rewrite docs/options.md's table from All")

const tableHeading = "| option | default | meaning |\n|---|---|---|\n"

// markdownTable is docs/options.md's table: a row per option of All, in its order.
func markdownTable() string {
	var b strings.Builder
	b.WriteString(tableHeading)
	for _, o := range All {
		def := "| `" + o.Default + "` |"
		if o.Default == "" {
			def = "| |"
		}
		fmt.Fprintf(&b, "| `%s%s` %s %s |\n", Prefix, o.Name, def, o.Doc)
	}
	return b.String()
}

// TestDocsShowTheOptionsTable keeps docs/options.md's table the one the code declares.
func TestDocsShowTheOptionsTable(t *testing.T) {
	docsection.Block{
		Page:  "../../docs/options.md",
		Begin: "<!-- options: made by internal/options (go test ./internal/options -update) -->\n",
		End:   "<!-- end of options -->\n",
	}.Check(t, markdownTable(), *update)
}

func TestLoadRejectsBadValuesWithAReason(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "")
	h.Run("set-option", "-g", Prefix+"status-mode", "Job")
	h.Run("set-option", "-g", Prefix+"tick", "fast")
	h.Run("set-option", "-g", Prefix+"notify-pane-limit", "-1")
	h.Run("set-option", "-g", Prefix+"name-max", "0")
	h.Run("set-option", "-g", Prefix+"ssh", "-f")
	got, err := Load(context.Background(), h.Server)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Push() || Tick.In(got) != time.Second || got.Notify().PerPane != 3 || got.StatusLine().NameMax != 24 || SSH.In(got) != "" {
		t.Errorf("bad values were not replaced by defaults: mode push=%v tick %q", got.Push(), got.get("tick"))
	}
	all := strings.Join(got.Problems, "\n")
	for _, want := range []string{`@paneherd-status-mode "Job" is not one of push, job`, `@paneherd-tick "fast" is not a duration`, "notify-pane-limit",
		`@paneherd-name-max "0" is not a positive whole number; using "24"`, `@paneherd-ssh "-f" @paneherd-ssh: "-f": paneherd sets -f's part itself`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems %q lack %q", got.Problems, want)
		}
	}
}

func TestCheckPositive(t *testing.T) {
	o := Option{Name: "name-max", Kind: kindPositive}
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"1", true}, {"24", true}, {"500", true},
		{"0", false}, {"-3", false}, {"", false}, {"12chars", false}, {"2.5", false},
	} {
		if err := o.check(tt.value); (err == nil) != tt.ok {
			t.Errorf("check(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
	}
}

// A percent is a whole number from 0 to 100; the context options read as the notifier's
// mark and the line's threshold.
func TestCheckPercent(t *testing.T) {
	o := Option{Name: "notify-context", Kind: kindPercent}
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"0", true}, {"85", true}, {"100", true}, {"101", false}, {"-1", false}, {"85%", false}, {"", false},
	} {
		if err := o.check(tt.value); (err == nil) != tt.ok {
			t.Errorf("check(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
	}
	v := Defaults()
	if c := v.Notify(); c.ContextMark != 0 || c.Enabled[notify.ContextFull] || v.StatusLine().ContextAt != 0 {
		t.Errorf("defaults: mark %d, enabled %v, line %d; want all off", c.ContextMark, c.Enabled[notify.ContextFull], v.StatusLine().ContextAt)
	}
	v.m["notify-context"], v.m["context-show"] = "85", "70"
	if c := v.Notify(); c.ContextMark != 85 || !c.Enabled[notify.ContextFull] || v.StatusLine().ContextAt != 70 {
		t.Errorf("set: mark %d, enabled %v, line %d", c.ContextMark, c.Enabled[notify.ContextFull], v.StatusLine().ContextAt)
	}
}

// Host names go on ssh's command line: one ssh would read as an option is refused.
func TestCheckHosts(t *testing.T) {
	o := Option{Name: "hosts", Kind: kindHosts}
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"", true}, {"devbox", true}, {"devbox  me@build.example\tbox", true}, {"a b", true}, {"me@[::1]", false}, {"devbox devbox", false},
		{"-oProxyCommand=touch", false}, {"devbox -J", false}, {"box\x1b", false},
	} {
		if err := o.check(tt.value); (err == nil) != tt.ok {
			t.Errorf("check(%q) = %v, want ok %v", tt.value, err, tt.ok)
		}
	}
	v := Defaults()
	v.m["hosts"] = " devbox\tme@build:2222 "
	got := Hosts.In(v)
	if len(got) != 2 || got[0].Label != "devbox" || got[1].Label != "build" || got[1].Dest != "me@build" || got[1].Port != 2222 {
		t.Errorf("Hosts = %+v", got)
	}
}

func TestStatusLineNameMax(t *testing.T) {
	if got := Defaults().StatusLine().NameMax; got != 24 {
		t.Errorf("default NameMax = %d, want 24", got)
	}
	v := merge(map[string]bool{"name-max": true}, valuesWith("name-max", "8"))
	if got := v.StatusLine().NameMax; got != 8 || len(v.Problems) != 0 {
		t.Errorf("name-max 8: NameMax = %d, problems %q", got, v.Problems)
	}
}

// valuesWith lists every option's printed value in table order, as Load reads them:
// the defaults, with name set to value.
func valuesWith(name, value string) []string {
	out := make([]string, len(All))
	for i, o := range All {
		out[i] = o.Default
		if o.Name == name {
			out[i] = value
		}
	}
	return out
}

// A notification waits for a model's words only when a model is on.
func TestNotifyExplainWaitOnlyWithAModel(t *testing.T) {
	if got := Defaults().Notify().ExplainWait; got != 0 {
		t.Errorf("@paneherd-llm off: ExplainWait = %v, want 0", got)
	}
	v := merge(map[string]bool{"llm": true}, valuesWith("llm", "on"))
	if got := v.Notify().ExplainWait; got != 3*time.Second {
		t.Errorf("@paneherd-llm on: ExplainWait = %v, want the default 3s", got)
	}
}

// TestNotifyExtraBackends: each extra backend's option reaches the notifier's
// configuration; set nothing and none is on; a bad format is one line and the default.
func TestNotifyExtraBackends(t *testing.T) {
	if backends, problems := notify.Extras(Defaults().Notify(), notify.ExtraEnv{}); len(backends)+len(problems) != 0 {
		t.Errorf("with every option at its default, extra backends %v, problems %v; want none", backends, problems)
	}
	set := map[string]string{"notify-terminal": "osc777", "notify-command": "ntfy-send 'a b'", "notify-command-timeout": "3s",
		"notify-webhook": "https://ntfy.sh/secret-topic", "notify-webhook-format": "xml", "notify-sound": "/tmp/ding.wav"}
	printed := valuesWith("", "")
	isSet := map[string]bool{}
	for i, o := range All {
		if v, ok := set[o.Name]; ok {
			printed[i], isSet[o.Name] = v, true
		}
	}
	v := merge(isSet, printed)
	c := v.Notify()
	if c.Terminal != "osc777" || c.Command != "ntfy-send 'a b'" || c.CommandTimeout != 3*time.Second ||
		c.Webhook != "https://ntfy.sh/secret-topic" || c.WebhookFormat != "json" || c.Sound != "/tmp/ding.wav" {
		t.Errorf("config = %+v", c)
	}
	if len(v.Problems) != 1 || !strings.Contains(v.Problems[0], `@paneherd-notify-webhook-format "xml" is not one of json, ntfy, slack; using "json"`) {
		t.Errorf("problems = %q; want one line for the format", v.Problems)
	}
}

// TestLoadWithoutUTF8SaysSo: a client tmux takes to lack UTF-8 gets '_' for the \x1f
// separators; Load says to set a UTF-8 locale rather than quote tmux's whole output.
func TestLoadWithoutUTF8SaysSo(t *testing.T) {
	h := tmuxtest.New(t)
	h.NewSession("s", "")
	_, err := Load(context.Background(), h.WithoutUTF8())
	if !errors.Is(err, tmux.ErrSanitised) || !strings.Contains(err.Error(), "set a UTF-8 locale") {
		t.Errorf("Load without UTF-8: %v; want it to say: set a UTF-8 locale", err)
	}
}

// TestEveryStateAndEventHasItsOptions: a state with no badge options, or an event with
// no switch, would be read from the zero option.
func TestEveryStateAndEventHasItsOptions(t *testing.T) {
	for _, st := range state.All {
		if b, ok := badges[st]; !ok || b.style.Name() == "" || b.icon.Name() == "" {
			t.Errorf("state %s has no style or icon option", st)
		}
	}
	for _, ev := range notify.Events {
		if _, ok := notifyOn[ev]; !ok {
			t.Errorf("notification event %s has no option switching it", ev)
		}
	}
}
