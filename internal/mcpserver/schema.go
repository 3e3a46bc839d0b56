package mcpserver

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// Strict schemas: jsonschema.For gives a slice or a pointer the type ["null", T], which
// is legal JSON Schema, but some MCP clients read "type" as one word and reject the tool
// or drop the constraint (the MCP Inspector's --strict warns of each). So every schema
// here has one type, and what a tool hands back never holds the null Go sends for a nil
// slice: emptyForNull sends it empty. A nil pointer or slice under omitempty is left out.

// strict makes s and every schema in it say one type, not "null" and a type.
func strict(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" }); len(types) == 1 {
		s.Type, s.Types = types[0], nil
	}
	for _, p := range s.Properties {
		strict(p)
	}
	strict(s.Items)
	strict(s.AdditionalProperties)
}

// emptyForNull returns the JSON text with each null that schema says is an array
// replaced by [].
func emptyForNull(text []byte, schema *jsonschema.Schema) ([]byte, error) {
	if !bytes.Contains(text, []byte("null")) {
		return text, nil
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber() // numbers as written: an int64 may not fit a float64
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(fillArrays(v, schema))
}

func fillArrays(v any, s *jsonschema.Schema) any {
	if s == nil {
		return v
	}
	switch v := v.(type) {
	case nil:
		if s.Type == "array" {
			return []any{}
		}
	case map[string]any:
		for k, e := range v {
			sub := s.Properties[k]
			if sub == nil {
				sub = s.AdditionalProperties
			}
			v[k] = fillArrays(e, sub)
		}
	case []any:
		for i, e := range v {
			v[i] = fillArrays(e, s.Items)
		}
	}
	return v
}
