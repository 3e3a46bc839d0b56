package notify

import (
	"context"
	"strings"
	"time"
)

// Explanation is a language model's words on the screen behind a notification: what it
// shows and what a person must do (issue 17: the third witness, for summaries).
type Explanation struct {
	Summary string
	Actions []string
}

// Explainer gives a model's words on the screen of a notification's pane; false when it
// has none (no model, a failure, an answer for another state). ctx ends when the
// notifier stops; the notifier waits for its answer only ExplainWait, and lets it finish
// after that (its answer is cached for the next question about that screen).
type Explainer func(ctx context.Context, x Notification) (Explanation, bool)

// explain gives a notification of a dialog or an error, alone in its burst, the model's
// words, waiting for them at most ExplainWait: it goes out late by that much at worst,
// with the pack's words when the model has not answered. A summary of several panes shows
// their titles only: asking about each would spend the model's budget on words nobody sees.
func (n *Notifier) explain(ctx context.Context, burst []Notification) {
	wait := min(n.config().ExplainWait, explainWaitMax)
	if n.Explain == nil || wait <= 0 || len(burst) != 1 || !burst[0].Critical || burst[0].PaneID == "" {
		return
	}
	type answer struct {
		words Explanation
		ok    bool
	}
	answers := make(chan answer, 1)
	x := burst[0]
	n.explaining.Go(func() {
		words, ok := n.Explain(ctx, x)
		answers <- answer{words, ok}
	})
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case a := <-answers:
		if a.ok {
			burst[0].explained(a.words)
		}
	case <-timer.C:
	case <-ctx.Done():
	}
}

// explained puts the model's words in the body, above where the pane is, in place of the
// pack's summary.
func (x *Notification) explained(e Explanation) {
	lines := []string{e.Summary}
	for _, a := range e.Actions {
		lines = append(lines, "→ "+a)
	}
	lines = append(lines, "in "+x.Target)
	x.Body = strings.Join(lines, "\n")
	x.Summary = e.Summary
	x.Explained = true
}

// explainWaitMax bounds ExplainWait: the model's own time limit (llm.DefaultTimeout);
// waiting longer would only delay the notification.
const explainWaitMax = 10 * time.Second
