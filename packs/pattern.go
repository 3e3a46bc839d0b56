package packs

import (
	"fmt"
	"regexp"
)

// Pattern is a regular expression (Go RE2 syntax) compiled when the pack is decoded, so a
// bad one is reported with its file and line before anything runs.
type Pattern struct {
	*regexp.Regexp
}

// UnmarshalText compiles the pattern.
func (p *Pattern) UnmarshalText(b []byte) error {
	re, err := regexp.Compile(string(b))
	if err != nil {
		return fmt.Errorf("bad regular expression %q: %w", b, err)
	}
	p.Regexp = re
	return nil
}

// MarshalText gives the source back, for `packs show`.
func (p Pattern) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Patterns is a list of patterns; in TOML, one string or an array of strings.
type Patterns []Pattern

// UnmarshalTOML accepts a string or an array of strings.
func (ps *Patterns) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		return ps.add(v)
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("expected strings, found %T", e)
			}
			if err := ps.add(s); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("expected a string or an array of strings, found %T", v)
}

func (ps *Patterns) add(s string) error {
	var p Pattern
	if err := p.UnmarshalText([]byte(s)); err != nil {
		return err
	}
	*ps = append(*ps, p)
	return nil
}

// find returns the first pattern matching s, or nil.
func (ps Patterns) find(s string) *Pattern { return (*lineMemo)(nil).find(ps, s) }
