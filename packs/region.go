package packs

import (
	"fmt"
	"strconv"
	"strings"
)

// Region kinds: where on the screen a rule looks.
const (
	RegionScreen     = "screen"      // every line
	RegionLast       = "last"        // the last N non-empty lines
	RegionAboveInput = "above_input" // the N non-empty lines just above the input box
	RegionBelowInput = "below_input" // every line below the input box
	RegionInput      = "input"       // the input line itself
)

// Region is written "screen", "last:N", "above_input:N", "below_input" or "input".
type Region struct {
	Kind  string
	Lines int
}

// UnmarshalText parses a region.
func (r *Region) UnmarshalText(b []byte) error {
	kind, count, hasCount := strings.Cut(string(b), ":")
	switch kind {
	case RegionScreen, RegionBelowInput, RegionInput:
		if hasCount {
			return fmt.Errorf("region %q takes no line count", kind)
		}
		*r = Region{Kind: kind}
		return nil
	case RegionLast, RegionAboveInput:
		n := DefaultRegionLines
		if hasCount {
			v, err := strconv.Atoi(count)
			if err != nil || v < 1 {
				return fmt.Errorf("region %q: line count must be a positive number", b)
			}
			n = v
		}
		*r = Region{Kind: kind, Lines: n}
		return nil
	}
	return fmt.Errorf("unknown region %q (screen, last:N, above_input:N, below_input, input)", b)
}

// MarshalText writes the region back.
func (r Region) MarshalText() ([]byte, error) {
	if r.Lines > 0 {
		return []byte(fmt.Sprintf("%s:%d", r.Kind, r.Lines)), nil
	}
	return []byte(r.Kind), nil
}
