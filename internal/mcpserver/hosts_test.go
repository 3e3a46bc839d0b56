package mcpserver

import "testing"

// TestTailIsTheLastLine: what the host's paneherd wrote last is its last whole line,
// however the writes cut it, blank lines and control characters aside.
func TestTailIsTheLastLine(t *testing.T) {
	var said tail
	for _, chunk := range []string{"first line\nmcp: the wor", "ker api is gone\x1b[0m\r\n", "\n"} {
		said.Write([]byte(chunk))
	}
	if got, want := said.line(), ": mcp: the worker api is gone[0m"; got != want {
		t.Errorf("line() = %q, want %q", got, want)
	}
	var nothing tail
	if got := nothing.line(); got != "" {
		t.Errorf("line() of nothing = %q", got)
	}
}
