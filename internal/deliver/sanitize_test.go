package deliver

import (
	"errors"
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	tests := []struct {
		name, in, want string
		err            error
	}{
		{"plain", "fix the test", "fix the test", nil},
		{"multi-line and tabs kept", "line 1\n\tline 2", "line 1\n\tline 2", nil},
		{"paste end marker cannot escape", "a\x1b[201~\x03rm -rf ~\r", "a[201~rm -rf ~", nil},
		{"CRLF and CR become LF", "a\r\nb\rc", "a\nb\nc", nil},
		{"C1 controls and DEL dropped", "a\u009b31mb\x7fc", "a31mbc", nil},
		{"broken UTF-8 dropped", "caf\xc3\xa9 \xff!", "café !", nil},
		{"bidi controls dropped", "invoice\u202egnp.exe \u2066x\u2069 l\u200er", "invoicegnp.exe x lr", nil},
		{"zero-width characters dropped", "r\u200bm -\u2060rf\ufeff ~", "rm -rf ~", nil},
		{"hidden tag text dropped", "hi\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065", "hi", nil},
		{"joiners of emoji and scripts kept", "👩\u200d💻 می\u200cخواهم", "👩\u200d💻 می\u200cخواهم", nil},
		{"trailing newlines go", "go\n\n", "go", nil},
		{"only controls", "\x1b\x07\n", "", ErrEmpty},
		{"too long", strings.Repeat("x", MaxPayload+1), "", ErrTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sanitize(tt.in)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("Sanitize(%q) = %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
			}
		})
	}
}
