package packs

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/state"
)

const fixturesDir = "testdata/fixtures"

// fixturePack maps a fixtures folder to the pack that reads it.
var fixturePack = map[string]string{
	"bash":     "shell",
	"claude":   "claude",
	"codex":    "codex",
	"gemini":   "gemini",
	"opencode": "opencode",
	"qwen":     "qwen",
}

// fixtureName is NN-STATE-description.(txt|ansi).
var fixtureName = regexp.MustCompile(`^\d+-([A-Z_]+)-.*\.(?:txt|ansi)$`)

// fixture is one labelled real screen.
type fixture struct {
	path  string // relative to fixturesDir
	pack  string
	state string // from the file name; EXITED included
}

func labelledFixtures(t testing.TB) []fixture {
	t.Helper()
	var out []fixture
	for dir, pack := range fixturePack {
		entries, err := os.ReadDir(filepath.Join(fixturesDir, dir))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			m := fixtureName.FindStringSubmatch(e.Name())
			if e.IsDir() || m == nil {
				continue
			}
			out = append(out, fixture{path: filepath.Join(dir, e.Name()), pack: pack, state: m[1]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	if len(out) == 0 {
		t.Fatal("no fixtures found")
	}
	return out
}

func readScreen(t testing.TB, path string) screen.Screen {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return screen.Parse(string(data))
}

func builtinSet(t testing.TB) *Set {
	t.Helper()
	set := Load("")
	if len(set.Problems) > 0 {
		t.Fatalf("builtin packs have problems: %v", set.Problems)
	}
	return set
}

func mustPack(t testing.TB, set *Set, name string) *Pack {
	t.Helper()
	p, err := set.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFixtures classifies every labelled real screen, plain and with escapes, with its
// pack and no known foreground process. EXITED means the program quit: an agent's pack
// must say EXITED, or ERROR when it died of one; the shell's pack, whose shell is back at
// its prompt, READY or ERROR.
func TestFixtures(t *testing.T) {
	set := builtinSet(t)
	for _, f := range labelledFixtures(t) {
		t.Run(f.path, func(t *testing.T) {
			got := mustPack(t, set, f.pack).Classify(readScreen(t, filepath.Join(fixturesDir, f.path)))
			ok := string(got.State) == f.state
			if f.state == "EXITED" {
				ok = got.State == state.Exited || got.State == state.Error
				if f.pack == "shell" {
					ok = got.State == state.Ready || got.State == state.Error
				}
			}
			if !ok {
				t.Errorf("%s says %s (rule %q, %q), want %s", f.pack, got.State, got.Rule, got.Summary, f.state)
			}
			if got.State != state.Unknown && strings.TrimSpace(got.Summary) == "" {
				t.Errorf("rule %q gave no summary", got.Rule)
			}
		})
	}
}

// TestFixturesDetectedByScreen checks that screen signatures alone pick the right pack for
// every screen where the agent is still running.
func TestFixturesDetectedByScreen(t *testing.T) {
	set := builtinSet(t)
	for _, f := range labelledFixtures(t) {
		if f.pack == "shell" || f.state == "EXITED" {
			continue
		}
		t.Run(f.path, func(t *testing.T) {
			got := set.ForScreen(readScreen(t, filepath.Join(fixturesDir, f.path)))
			if got == nil || got.Name != f.pack {
				name := "nothing"
				if got != nil {
					name = got.Name
				}
				t.Errorf("ForScreen picked %s, want %s", name, f.pack)
			}
		})
	}
}

// TestFixtureSequences reads the unlabelled series (captures ~0.5 s apart). Each folder
// shows one situation throughout, read by eye: an idle agent, or one at work (spinner,
// retry countdown, running command, streaming, progress bar). Every frame must read so.
func TestFixtureSequences(t *testing.T) {
	want := map[string]state.State{
		"seq-idle":              state.Ready,
		"seq-idle-after-answer": state.Ready,
		"seq-thinking":          state.Busy,
		"seq-retrying":          state.Busy,
		"seq-running-command":   state.Busy,
		"seq-streaming":         state.Busy,
		"seq-reconnecting":      state.Busy,
		"seq-progress-bar":      state.Busy,
		"seq-sleep":             state.Busy,
	}
	set := builtinSet(t)
	seen := 0
	for dir, pack := range fixturePack {
		seqs, _ := filepath.Glob(filepath.Join(fixturesDir, dir, "seq-*"))
		for _, seq := range seqs {
			expect, ok := want[filepath.Base(seq)]
			if !ok {
				t.Errorf("%s: no expectation for this series; read it and add one", seq)
				continue
			}
			frames, _ := filepath.Glob(filepath.Join(seq, "*"))
			for _, frame := range frames {
				seen++
				got := mustPack(t, set, pack).Classify(readScreen(t, frame))
				if got.State != expect {
					t.Errorf("%s: %s says %s (rule %q), want %s", frame, pack, got.State, got.Rule, expect)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no sequence frames found")
	}
}
