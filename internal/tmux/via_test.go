package tmux

import (
	"context"
	"errors"
	"path/filepath"
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

// fakeVia answers the first closedAfter commands, then says it is closed.
type fakeVia struct {
	closedAfter int
	ran         []string
}

func (f *fakeVia) Command(_ context.Context, args ...string) (string, bool, error) {
	if len(f.ran) >= f.closedAfter {
		return "", false, ErrViaClosed
	}
	f.ran = append(f.ran, args[0])
	return "", false, nil
}

// A closed Via before anything ran: a tmux process does the work (here: there is no
// server to find). Closed in the middle of a chain: no process repeats what ran.
func TestRunFallsBackToAProcessOnlyWhenNothingRan(t *testing.T) {
	ctx := context.Background()
	chain := Chain([][]string{{"set-option", "-g", "@a", "1"}, {"set-option", "-g", "@b", "2"}})
	dir := t.TempDir()
	for _, tc := range []struct {
		name        string
		closedAfter int
		forked      bool
	}{
		{"closed from the start", 0, true},
		{"closed mid-chain", 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			via := &fakeVia{closedAfter: tc.closedAfter}
			s := Server{Socket: filepath.Join(dir, "no-server"), Via: via}
			_, err := s.Run(ctx, nil, chain...)
			if forked := errors.Is(err, ErrNoServer); forked != tc.forked || err == nil {
				t.Errorf("error %v: forked %v, want %v", err, forked, tc.forked)
			}
			if errors.Is(err, ErrViaClosed) {
				t.Errorf("Run returned %v: its callers cannot tell what ran", err)
			}
		})
	}
}

// if-shell runs its branch as commands of their own, each answered in a block of its own
// on a control client: such a chain goes by a tmux process, never through Via.
func TestRunSendsCommandsRunningOthersByAProcess(t *testing.T) {
	via := &fakeVia{closedAfter: 100}
	s := Server{Socket: filepath.Join(t.TempDir(), "no-server"), Via: via}
	chain := Chain([][]string{{"set-option", "-g", "@a", "1"}, {"if-shell", "-F", "1", "send-keys Enter"}})
	if _, err := s.Run(context.Background(), nil, chain...); !errors.Is(err, ErrNoServer) || len(via.ran) != 0 {
		t.Errorf("error %v, via ran %q: want a process (no server), nothing through Via", err, via.ran)
	}
}
