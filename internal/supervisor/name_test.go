package supervisor

import (
	"strings"
	"testing"
)

// TestNameCheckTakesASCIIOnly: a name is a tmux target typed and compared byte for byte;
// letters beyond ASCII are refused with the reason, and a directory's name made into a
// default name passes the same check.
func TestNameCheckTakesASCIIOnly(t *testing.T) {
	for _, tc := range []struct {
		name, want string // want: part of the refusal ("": accepted)
	}{
		{"api-2_x+y@z=w,v", ""},
		{"naïve", "ASCII"},
		{"名前", "ASCII"},
		{"аpi", "ASCII"}, // a Cyrillic а: reads as "api"
		{"Ωmega", "ASCII"},
		{"a.b", "ASCII letters"},
		{"%1", "not starting with"},
	} {
		err := checkName("name", tc.name)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("checkName(%q) = %v, want it accepted", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("checkName(%q) = %v, want a refusal saying %q", tc.name, err, tc.want)
		}
	}
	for _, dir := range []string{"/src/café", "/src/名前", "/src/a.b"} {
		if name := defaultName(dir, ""); checkName("name", name) != nil {
			t.Errorf("the default name of %s is %q, which the check refuses", dir, name)
		}
	}
}
