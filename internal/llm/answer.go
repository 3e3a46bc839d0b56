package llm

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paneherd/paneherd/internal/state"
)

// Bounds on an answer: it ends up in a status line, a notification and the history.
const (
	maxText    = 120 // runes in the summary and in each action
	maxActions = 5
)

// rawAnswer is the model's JSON before validation.
type rawAnswer struct {
	State         string     `json:"state"`
	Summary       string     `json:"summary"`
	ActionsNeeded rawActions `json:"actions_needed"`
}

// rawActions is actions_needed as models write it: a list of strings, or one string
// (models asked for a list of one often answer with its only item).
type rawActions []string

// UnmarshalJSON accepts a list of strings, a string (one action) or null.
func (a *rawActions) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = rawActions{one}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return fmt.Errorf("actions_needed is neither a list of strings nor a string: %s", oneLine(string(b), 40))
	}
	*a = list
	return nil
}

// parseAnswer reads and validates the model's reply: a JSON object, bare or in a
// Markdown code fence (some models add one even when asked for JSON).
func parseAnswer(content string) (Answer, error) {
	var raw rawAnswer
	if err := json.Unmarshal([]byte(unfence(content)), &raw); err != nil {
		return Answer{}, fmt.Errorf("%w: not a JSON object {state, summary, actions_needed}: %v: %q", ErrBadAnswer, err, oneLine(content, 80))
	}
	return raw.validate()
}

// unfence strips a ``` or ```json fence around the text.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "```"), "```")
	if first, rest, ok := strings.Cut(s, "\n"); ok && !strings.Contains(first, "{") {
		s = rest // the fence's language tag: "json"
	}
	return strings.TrimSpace(s)
}

// validate checks the state, the summary and the actions. Blank actions are dropped;
// nothing else is changed or filled in.
func (r rawAnswer) validate() (Answer, error) {
	st, err := answerState(r.State)
	if err != nil {
		return Answer{}, err
	}
	summary := strings.TrimSpace(r.Summary)
	if summary == "" {
		return Answer{}, fmt.Errorf("%w: empty summary", ErrBadAnswer)
	}
	if err := checkText("summary", summary); err != nil {
		return Answer{}, err
	}
	actions := []string{}
	for _, a := range r.ActionsNeeded {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if err := checkText("action", a); err != nil {
			return Answer{}, err
		}
		actions = append(actions, a)
	}
	if len(actions) > maxActions {
		return Answer{}, fmt.Errorf("%w: %d actions_needed, at most %d", ErrBadAnswer, len(actions), maxActions)
	}
	return Answer{State: st, Summary: summary, ActionsNeeded: actions}, nil
}

// answerState accepts the states a pack rule may set, and UNKNOWN, in any case.
func answerState(s string) (state.State, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == string(state.Unknown) {
		return state.Unknown, nil
	}
	st, err := state.ParseRuleState(s)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	return st, nil
}

// checkText refuses a text over maxText runes, or with a line break or other control
// character: it is shown on one line.
func checkText(what, s string) error {
	if n := utf8.RuneCountInString(s); n > maxText {
		return fmt.Errorf("%w: %s of %d characters, at most %d", ErrBadAnswer, what, n, maxText)
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return fmt.Errorf("%w: %s with a line break or control character: %q", ErrBadAnswer, what, s)
	}
	return nil
}
