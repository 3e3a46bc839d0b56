package notify

import (
	"context"
	"strings"
	"sync"
	"time"
)

// Explanation is a language model's words on the screen behind a notification: what it
// shows and what a person must do (issue 17: the third witness, for summaries).
type Explanation struct {
	Summary string
	Actions []string
}

// Explainer gives a model's words on the screen of a notification's pane; false when it
// has none (no model, a failure, an answer for another state). It must return when ctx
// ends.
type Explainer func(ctx context.Context, x Notification) (Explanation, bool)

// explain gives each notification of a dialog or an error the model's words, all asked at
// once and each waited for at most ExplainWait: a notification goes out late by that
// much at worst, with the pack's words when the model has not answered.
func (n *Notifier) explain(ctx context.Context, burst []Notification) {
	wait := min(n.config().ExplainWait, explainWaitMax)
	if n.Explain == nil || wait <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var wg sync.WaitGroup
	for i := range burst {
		if !burst[i].Critical || burst[i].PaneID == "" {
			continue
		}
		wg.Go(func() {
			if e, ok := n.Explain(ctx, burst[i]); ok {
				burst[i].explained(e)
			}
		})
	}
	wg.Wait()
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
	x.Explained = true
}

// explainWaitMax bounds ExplainWait: the model's own time limit (llm.DefaultTimeout);
// waiting longer would only delay the notification.
const explainWaitMax = 10 * time.Second
