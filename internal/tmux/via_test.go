package tmux

import (
	"reflect"
	"testing"
)

func TestSplitReadsArgvAsTmuxDoes(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want [][]string
	}{
		{"one command", []string{"list-panes", "-a"}, [][]string{{"list-panes", "-a"}}},
		{"lone separators", Chain([][]string{{"a", "1"}, {"b"}}), [][]string{{"a", "1"}, {"b"}}},
		{"a word ending the command", []string{"a", "x;", "b"}, [][]string{{"a", "x"}, {"b"}}},
		{"an escaped semicolon is text", []string{"set", LiteralArg("v;")}, [][]string{{"set", "v;"}}},
		{"empty commands vanish", []string{";", "a", ";", ";"}, [][]string{{"a"}}},
		{"a semicolon inside a word is text", []string{"set", "a;b"}, [][]string{{"set", "a;b"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := split(tc.args); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("split(%q) = %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}
