package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/wire"
)

// Every tool's input and output schema, as a client lists them, is one that strict
// clients read: each schema one "type" word (never the array form, never "null"), no
// keyword they may not follow ($ref, anyOf, ...), no bare true or {} standing for any
// value, and formats from the short list every provider knows.
func TestToolSchemasAreStrict(t *testing.T) {
	tools := listTools(t)
	if len(tools) != 9 {
		t.Fatalf("%d tools listed; want 9", len(tools))
	}
	for _, tool := range tools {
		for which, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			raw, err := json.Marshal(schema)
			if err != nil {
				t.Fatal(err)
			}
			var s any
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatal(err)
			}
			for _, problem := range strictProblems(s, "") {
				t.Errorf("%s's %s schema: %s", tool.Name, which, problem)
			}
		}
	}
}

// listTools lists the tools of a server over no daemon: listing asks it nothing.
func listTools(t *testing.T) []*mcp.Tool {
	t.Helper()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := New(herd.Daemon{}, Options{}).Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// strictProblems says what a strict client finds wrong in schema s, at path and below.
func strictProblems(s any, path string) []string {
	at := path
	if at == "" {
		at = "the schema"
	}
	m, ok := s.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s is %v, not a schema object", at, s)}
	}
	var problems []string
	typ, ok := m["type"].(string)
	switch {
	case m["type"] == nil:
		problems = append(problems, at+" has no type")
	case !ok:
		problems = append(problems, fmt.Sprintf("%s has the type %v: one word, never a list", at, m["type"]))
	case !slices.Contains([]string{"object", "array", "string", "integer", "number", "boolean"}, typ):
		problems = append(problems, fmt.Sprintf("%s has the type %q", at, typ))
	}
	for _, key := range []string{"$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not", "if", "discriminator", "nullable"} {
		if _, ok := m[key]; ok {
			problems = append(problems, fmt.Sprintf("%s uses %s", at, key))
		}
	}
	if f, ok := m["format"].(string); ok && !slices.Contains([]string{"date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}, f) {
		problems = append(problems, fmt.Sprintf("%s has the format %q", at, f))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			problems = append(problems, strictProblems(p, path+"."+name)...)
		}
	}
	if items, ok := m["items"]; ok {
		problems = append(problems, strictProblems(items, path+"[]")...)
	} else if typ == "array" {
		problems = append(problems, at+" is an array of anything")
	}
	switch extra := m["additionalProperties"].(type) {
	case nil, bool:
		if extra == true {
			problems = append(problems, at+" takes any further property")
		}
	default:
		problems = append(problems, strictProblems(extra, path+".*")...)
	}
	return problems
}

// What a tool hands back keeps to its strict schema: a slice Go would send as null (none
// held) is sent empty, at the top and inside.
func TestResultsKeepToTheirSchemas(t *testing.T) {
	checkResult(t, workersOut{})
	checkResult(t, workersOut{Panes: []wire.PaneStatus{{Worker: &wire.Worker{}}}})
	checkResult(t, screenOut{})
	checkResult(t, wire.WaitResult{})
	checkResult(t, wire.History{})
	checkResult(t, wire.History{Events: []wire.WorkerEvent{{}}})
	checkResult(t, wire.Result{})
	checkResult(t, wire.Created{Prompt: &wire.Result{}})
	checkResult(t, wire.Worker{})
}

func checkResult[T any](t *testing.T, out T) {
	t.Helper()
	schema := mustSchema[T]()
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := structured(out, schema, nil)
	if err != nil {
		t.Fatalf("%T: %v", out, err)
	}
	var v any
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &v); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(v); err != nil {
		t.Errorf("%T %+v: %v in %s", out, out, err, res.StructuredContent)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != string(res.StructuredContent.(json.RawMessage)) {
		t.Errorf("%T: the text %s is not the structured content %s", out, text, res.StructuredContent)
	}
}
