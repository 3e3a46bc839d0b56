package llm

import "errors"

// ErrLimited is returned by Read, without a request, when the per-minute limit or the
// daily budget is spent.
var ErrLimited = errors.New("llm: request limit reached (per minute or daily budget)")

// ErrBadAnswer is wrapped by Read's error when the model answered but not as asked:
// malformed JSON, an unknown state, an empty or long summary, too many actions.
var ErrBadAnswer = errors.New("bad answer")

// ErrNoModel is returned by Read when the Config names no model.
var ErrNoModel = errors.New("llm: no model configured")
