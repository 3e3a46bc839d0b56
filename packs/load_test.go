package packs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A pack that recognises nothing and decides nothing is a mistake, most often the empty
// file a shell creates for `paneherd packs show claude > claude.toml` before paneherd
// reads the user packs: it must not replace the builtin.
func TestEmptyPackIsAProblem(t *testing.T) {
	tests := []struct {
		name, file, body string
		want             []string
	}{
		{"empty file named like a builtin", "claude.toml", "",
			[]string{"claude.toml: empty file", `builtin "claude" stays in force`, "packs show --builtin claude > "}},
		{"comments and a description only", "mine.toml", "# my pack\ndescription = \"x\"\n",
			[]string{"mine.toml: no [detect] and no [[rules]]"}},
		{"an empty [detect] counts as none", "codex.toml", "[detect]\npriority = 10\n",
			[]string{"codex.toml: no [detect] and no [[rules]]", `builtin "codex" stays in force`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tt.file)
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ParseFile(path)
			if err == nil {
				t.Fatalf("ParseFile(%q) loaded a pack that says nothing", tt.body)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			set := Load(dir)
			if len(set.Problems) != 1 || set.Problems[0].Error() != err.Error() {
				t.Errorf("Load problems %v, want the file's error", set.Problems)
			}
		})
	}
}

func TestEmptyUserPackLeavesTheBuiltin(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "claude.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Load(dir).Get("claude")
	if err != nil || p.Source != SourceBuiltin || len(p.Rules) == 0 {
		t.Errorf("claude pack with an empty user file: %v, %v; want the builtin", p, err)
	}
}

// A pack may detect without rules (to name what runs in a pane) or carry rules without
// detection (set by @paneherd-pack).
func TestHalfAPackLoads(t *testing.T) {
	for name, body := range map[string]string{
		"detect only": "[detect]\ncommands = [\"x\"]\n",
		"rules only":  "[[rules]]\nname = \"r\"\nstate = \"BUSY\"\nmatch = 'x'\n",
	} {
		if _, err := Parse("p", "p.toml", []byte(body)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A tested version the daemon could never match is an error naming the file, the line and
// the value; dotted digits load.
func TestTestedVersions(t *testing.T) {
	body := "description = \"x\"\ntested = [\"2.1.197\", \"v0.3\"]\n[detect]\ncommands = [\"x\"]\n"
	_, err := Parse("mine", "mine.toml", []byte(body))
	if err == nil || !strings.Contains(err.Error(), `mine.toml:2: tested: "v0.3" is not a version`) {
		t.Errorf("tested with v0.3: %v, want mine.toml:2 naming \"v0.3\"", err)
	}
	p, err := Parse("mine", "mine.toml", []byte(strings.Replace(body, `"v0.3"`, `"0.3"`, 1)))
	if err != nil || !slices.Equal(p.Tested, []string{"2.1.197", "0.3"}) {
		t.Errorf("tested dotted digits: %v, %v", p, err)
	}
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		p, err := Parse(name, SourceBuiltin, data)
		if err != nil {
			t.Fatal(err)
		}
		if name != Shell && len(p.Tested) == 0 {
			t.Errorf("builtin %s names no tested versions", name)
		}
	}
}
