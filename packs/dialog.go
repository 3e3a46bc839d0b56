package packs

import (
	"errors"
	"fmt"

	"github.com/paneherd/paneherd/internal/state"
)

// Choices a dialog may be answered with.
const (
	ChoiceApprove = "approve" // accept, once
	ChoiceAlways  = "always"  // accept and do not ask again, where the CLI offers it
	ChoiceDeny    = "deny"    // refuse
)

var (
	// ErrNotDialog is returned by DialogKeys when the screen's rule is not a dialog
	// paneherd may answer: not a confirmation, or one that needs a person.
	ErrNotDialog = errors.New("not a dialog paneherd may answer")
	// ErrChoice is returned by DialogKeys when the dialog does not offer the choice.
	ErrChoice = errors.New("the dialog does not offer that choice")
)

// DialogKeys returns the tmux keys that answer the dialog matched by rule with choice.
func (p *Pack) DialogKeys(rule, choice string) ([]string, error) {
	r := p.rule(rule)
	if r != nil && r.State.State == state.NeedsConfirmation && len(r.Choices) == 0 {
		return nil, fmt.Errorf("%w: it waits for a person to choose or type (%s rule %q); nothing pressed", ErrNotDialog, p.Name, rule)
	}
	if r == nil || r.State.State != state.NeedsConfirmation {
		return nil, fmt.Errorf("%w (%s rule %q)", ErrNotDialog, p.Name, rule)
	}
	if !contains(r.Choices, choice) {
		return nil, fmt.Errorf("%w: %q offers %v", ErrChoice, rule, r.Choices)
	}
	return p.keys(r, choice), nil
}

func (p *Pack) rule(name string) *Rule {
	for i := range p.Rules {
		if p.Rules[i].Name == name {
			return &p.Rules[i]
		}
	}
	return nil
}

// keys are the rule's own keys for the choice, else the pack's.
func (p *Pack) keys(r *Rule, choice string) []string {
	own, pack := r.Approve, p.Actions.Approve
	switch choice {
	case ChoiceAlways:
		own, pack = r.Always, p.Actions.Always
	case ChoiceDeny:
		own, pack = r.Deny, p.Actions.Deny
	}
	if len(own) > 0 {
		return own
	}
	return pack
}

// checkChoices rejects a choice that is unknown or has no keys to press.
func (p *Pack) checkChoices(r Rule) error {
	if len(r.Choices) > 0 && r.State.State != state.NeedsConfirmation {
		return fmt.Errorf("rule %q: only NEEDS_CONFIRMATION rules take choices", r.Name)
	}
	for _, c := range r.Choices {
		if c != ChoiceApprove && c != ChoiceAlways && c != ChoiceDeny {
			return fmt.Errorf("rule %q: unknown choice %q (approve, always, deny)", r.Name, c)
		}
		if len(p.keys(&r, c)) == 0 {
			return fmt.Errorf("rule %q: choice %q has no keys (set %s here or in [actions])", r.Name, c, c)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
