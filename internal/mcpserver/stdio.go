package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the MCP stdio transport on in and out: one JSON-RPC message per line. The
// SDK's own reader ends the session at the first line it cannot decode, without a word
// to the client, and takes an id of 1.5 for 1; so every line is checked first. A line
// that is no valid message is answered here (-32700 parse error, -32600 invalid
// request) and the next one read; only valid messages reach the SDK.
func Stdio(in io.Reader, out io.Writer) mcp.Transport {
	return &stdio{in: in, out: &lockedWriter{w: out}}
}

type stdio struct {
	in  io.Reader
	out *lockedWriter
}

// Connect hands the SDK's newline-delimited connection the lines that pass.
func (t *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	checked, sdk := io.Pipe()
	go t.pass(sdk)
	return (&mcp.IOTransport{Reader: checked, Writer: nopCloser{t.out}}).Connect(ctx)
}

// pass copies the lines that are valid messages to sdk and answers the others, until in
// ends (the client went) or the SDK closes its end.
func (t *stdio) pass(sdk *io.PipeWriter) {
	r := bufio.NewReader(t.in)
	for {
		line, tooLong, err := readLine(r, mcp.DefaultMaxLineLength)
		line = bytes.TrimSpace(line)
		bad := check(line, tooLong)
		switch {
		case bad != nil:
			if t.out.write(bad.response()) != nil {
				sdk.Close()
				return
			}
		case len(line) > 0:
			if _, werr := sdk.Write(append(line, '\n')); werr != nil {
				return // the SDK closed the session
			}
		}
		if err != nil {
			sdk.Close() // EOF: the SDK ends the session as with its own reader
			return
		}
	}
}

// readLine reads up to the next newline. A line longer than limit is read to its end and
// dropped: tooLong, and no bytes.
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > limit {
				line, tooLong = nil, true
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}

// refusal is the answer to a line that is no valid message.
type refusal struct {
	id      json.RawMessage // the message's id when it had a usable one, else null
	code    int64
	message string
}

func (r *refusal) response() []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc.Error  `json:"error"`
	}{"2.0", r.id, &jsonrpc.Error{Code: r.code, Message: r.message}})
	return append(b, '\n')
}

var null = json.RawMessage("null")

// check says why a line is no valid JSON-RPC 2.0 message for MCP, or nil: JSON, one
// object (MCP 2025-06-18 has no batches), "jsonrpc": "2.0", an id that is a string or an
// integer (MCP: never null), a method that is a string, or else a response.
func check(line []byte, tooLong bool) *refusal {
	if tooLong {
		return &refusal{null, jsonrpc.CodeInvalidRequest, fmt.Sprintf("a message longer than %d bytes", mcp.DefaultMaxLineLength)}
	}
	if len(line) == 0 {
		return nil
	}
	if !json.Valid(line) {
		return &refusal{null, jsonrpc.CodeParseError, "parse error: not JSON (one message per line)"}
	}
	var m map[string]json.RawMessage
	if line[0] == '[' {
		return &refusal{null, jsonrpc.CodeInvalidRequest, "a batch: send one message per line (MCP has no batches since 2025-06-18)"}
	}
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return &refusal{null, jsonrpc.CodeInvalidRequest, "not a JSON-RPC message: a message is an object"}
	}
	id, hasID := m["id"]
	if hasID && !validID(id) {
		return &refusal{null, jsonrpc.CodeInvalidRequest, fmt.Sprintf("id %s: an id is a string or an integer", id)}
	}
	if !hasID {
		id = null
	}
	if bad := checkFields(m, hasID); bad != "" {
		return &refusal{id, jsonrpc.CodeInvalidRequest, bad}
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return &refusal{id, jsonrpc.CodeInvalidRequest, err.Error()}
	}
	return nil
}

// checkFields says what is wrong with a message's fields other than its id, or "".
func checkFields(m map[string]json.RawMessage, hasID bool) string {
	var version, method string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return `"jsonrpc": "2.0" is missing`
	}
	raw, hasMethod := m["method"]
	_, hasResult := m["result"]
	_, hasError := m["error"]
	switch {
	case hasMethod && json.Unmarshal(raw, &method) != nil:
		return fmt.Sprintf("method %s: a method is a string", raw)
	case !hasMethod && (!hasID || !hasResult && !hasError):
		return "no method: neither a request nor a response"
	}
	if p, ok := m["params"]; ok && p[0] != '{' && p[0] != '[' && string(p) != "null" {
		return fmt.Sprintf("params %s: params are an object", p)
	}
	return ""
}

// validID: a string, or an integer a 64-bit number holds (1.5 and 1e3 are not).
func validID(raw json.RawMessage) bool {
	if len(raw) > 0 && raw[0] == '"' {
		return true
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// lockedWriter is stdout, shared by the SDK's answers and the refusals: one message per
// Write, never two interleaved.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) write(p []byte) error {
	_, err := l.Write(p)
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
