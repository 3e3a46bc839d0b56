package llm

import (
	"bufio"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/paneherd/paneherd/internal/paths"
)

// KeyName is the variable holding the key for the API at raw: OPENROUTER_API_KEY for
// OpenRouter, OPENAI_API_KEY for OpenAI, PANEHERD_LLM_KEY for any other (a key is never
// sent to a service it was not made for).
func KeyName(raw string) string {
	host := ""
	if u, err := url.Parse(raw); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	switch {
	case host == "openrouter.ai" || strings.HasSuffix(host, ".openrouter.ai"):
		return "OPENROUTER_API_KEY"
	case host == "api.openai.com":
		return "OPENAI_API_KEY"
	}
	return "PANEHERD_LLM_KEY"
}

// KeyFor is the key for the API at raw (KeyName), from getenv, then paneherd's .env at
// envFile; "" when none, and for plain http to another machine, where it would cross the
// network in the clear.
func KeyFor(raw string, getenv func(string) string, envFile string) string {
	if u, err := url.Parse(raw); err != nil || (u.Scheme != "https" && !Local(raw)) {
		return ""
	}
	return loadKey([]string{KeyName(raw)}, getenv, envFile)
}

// Local reports an API on this machine (llama.cpp, Ollama, vLLM on loopback): it needs
// no key.
func Local(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// loadKey is the first of the variables set, from getenv, then from the .env file at
// envFile (KEY=VALUE lines, an `export ` prefix and quotes allowed, # comments). "" when
// none; a missing or unreadable file is none.
func loadKey(names []string, getenv func(string) string, envFile string) string {
	for _, name := range names {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
	}
	if envFile == "" {
		return ""
	}
	vars := readEnvFile(envFile)
	for _, name := range names {
		if v := vars[name]; v != "" {
			return v
		}
	}
	return ""
}

// EnvFile is paneherd's .env: $XDG_CONFIG_HOME/paneherd/.env, else
// $HOME/.config/paneherd/.env; "" with neither variable set.
func EnvFile(getenv func(string) string) string {
	base, err := paths.XDG(getenv, "XDG_CONFIG_HOME", ".config")
	if err != nil {
		return ""
	}
	return filepath.Join(base, "paneherd", ".env")
}

// readEnvFile reads KEY=VALUE lines; a later line wins, as in a shell.
func readEnvFile(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, value, ok := envLine(sc.Text()); ok {
			vars[name] = value
		}
	}
	return vars
}

// envLine reads one line: `[export ]NAME=VALUE`, VALUE bare (a " #" starts a comment) or
// in single or double quotes (taken as written, no escapes).
func envLine(line string) (name, value string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", "", false
	}
	line = strings.TrimPrefix(line, "export ")
	name, value, ok = strings.Cut(line, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return "", "", false
	}
	value = strings.TrimSpace(value)
	if value != "" && (value[0] == '"' || value[0] == '\'') {
		end := strings.IndexByte(value[1:], value[0])
		if end < 0 {
			return "", "", false // an unclosed quote: not a value to trust
		}
		return name, value[1 : 1+end], true
	}
	if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	return name, value, true
}
