package llm

import (
	"os"
	"path/filepath"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestLoadKey(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	full := file("full.env", `# paneherd's keys
OTHER=1
export OPENAI_API_KEY="sk-openai-quoted" # the old one
  export OPENROUTER_API_KEY='sk-or-single'
`)
	openai := file("openai.env", "\n# comment\nexport OPENAI_API_KEY=sk-bare # trailing comment\nBROKEN LINE\n")
	dq := file("dq.env", `OPENROUTER_API_KEY = "sk-or # not a comment"`)
	unclosed := file("unclosed.env", `OPENROUTER_API_KEY="sk-or`)
	for _, tc := range []struct {
		name string
		env  map[string]string
		file string
		want string
	}{
		{"openrouter from env", map[string]string{"OPENROUTER_API_KEY": "a", "OPENAI_API_KEY": "b"}, full, "a"},
		{"openai from env beats the file", map[string]string{"OPENAI_API_KEY": "b"}, full, "b"},
		{"file: openrouter first, export and single quotes", nil, full, "sk-or-single"},
		{"file: bare value, comment", nil, openai, "sk-bare"},
		{"file: # inside quotes", nil, dq, "sk-or # not a comment"},
		{"file: unclosed quote", nil, unclosed, ""},
		{"missing file", nil, filepath.Join(dir, "none.env"), ""},
		{"no file", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := loadKey([]string{"OPENROUTER_API_KEY", "OPENAI_API_KEY"}, env(tc.env), tc.file); got != tc.want {
				t.Errorf("loadKey = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEnvFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"XDG_CONFIG_HOME", map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/paneherd/.env"},
		{"HOME", map[string]string{"HOME": "/h"}, "/h/.config/paneherd/.env"},
		{"neither", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EnvFile(env(tc.env)); got != tc.want {
				t.Errorf("EnvFile = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestKeyForSendsAKeyOnlyToItsService(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"OPENAI_API_KEY": "sk-openai", "OPENROUTER_API_KEY": "sk-or", "PANEHERD_LLM_KEY": "sk-other"}[k]
	}
	for url, want := range map[string]string{
		DefaultURL:                          "sk-or",
		"https://api.openai.com/v1":         "sk-openai",
		"https://openrouter.ai.evil.net/v1": "sk-other",
		"https://api.groq.com/openai/v1":    "sk-other",
		"http://192.168.1.9:8000/v1":        "", // a key in the clear over the network: none
		"http://127.0.0.1:11434/v1":         "sk-other",
	} {
		if got := KeyFor(url, env, ""); got != want {
			t.Errorf("KeyFor(%s) = %q, want %q", url, got, want)
		}
	}
	onlyOpenAI := func(k string) string { return map[string]string{"OPENAI_API_KEY": "sk-openai"}[k] }
	if got := KeyFor(DefaultURL, onlyOpenAI, ""); got != "" {
		t.Errorf("OpenRouter gets the OpenAI key %q", got)
	}
	if !Local("http://localhost:8080/v1") || !Local("http://127.0.0.2/v1") || Local("http://10.0.0.1/v1") {
		t.Errorf("Local is wrong")
	}
}
