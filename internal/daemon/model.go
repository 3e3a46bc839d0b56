package daemon

import (
	"context"
	"net/url"
	"os"
	"sync/atomic"
	"time"

	"github.com/paneherd/paneherd/internal/llm"
	"github.com/paneherd/paneherd/internal/options"
)

// The optional language-model reader (issue 17): packs first, agents' hooks second, a
// model third, for the screens neither settles. It never sits on the watcher's path: the
// watcher hands over an UNKNOWN screen (Unsure) without waiting, one goroutine asks the
// model, and a good answer comes back through Watcher.Model. It never acts on a pane.

// modelAsk is a screen to read.
type modelAsk struct {
	pane string
	text string
	hash uint64
}

// reader is the model's client, when @paneherd-llm is on and it can be asked (nil: off).
type reader struct {
	client atomic.Pointer[llm.Client]
	cfg    llm.Config // the client's, to keep it across a reload that changes nothing
	asks   chan modelAsk
}

func newReader() *reader { return &reader{asks: make(chan modelAsk, 16)} }

// unsure takes a screen the packs could not read; a full queue drops it (the model is
// slow or limited: it is asked again when the screen changes).
func (r *reader) unsure(paneID, text string, hash uint64) {
	if r.client.Load() == nil {
		return
	}
	select {
	case r.asks <- modelAsk{paneID, text, hash}:
	default:
	}
}

// applyModel configures the reader from the options, at start and on reload. On with no
// model, or with no key for a remote API, is one log line and the reader stays off.
func (d *Daemon) applyModel(values options.Values) {
	if values.Get("llm") != "on" {
		d.reader.client.Store(nil)
		return
	}
	cfg := llm.Config{URL: values.Get("llm-url"), Model: values.Get("llm-model"),
		PerMinute: values.Int("llm-per-minute"), PerDay: values.Int("llm-per-day")}
	cfg.Key = llm.KeyFor(cfg.URL, os.Getenv, llm.EnvFile(os.Getenv))
	switch {
	case cfg.Model == "":
		d.log.Warn().Msg("@paneherd-llm is on but @paneherd-llm-model is empty: no screen is sent to a model")
		d.reader.client.Store(nil)
		return
	case cfg.Key == "" && !loopback(cfg.URL):
		d.log.Warn().Str("url", cfg.URL).Msg("@paneherd-llm is on but no key was found for it (OPENROUTER_API_KEY for OpenRouter, " +
			"else OPENAI_API_KEY; in the environment or " + llm.EnvFile(os.Getenv) + "): no screen is sent to a model")
		d.reader.client.Store(nil)
		return
	}
	if d.reader.cfg == cfg && d.reader.client.Load() != nil {
		return // a reload that changed nothing keeps the budget used and the cache
	}
	d.reader.cfg = cfg
	d.reader.client.Store(llm.New(cfg))
	d.log.Info().Str("url", cfg.URL).Str("model", cfg.Model).Msg("screens no pack reads are read by a language model")
}

// loopback: a local server (llama.cpp, Ollama, vLLM) needs no key.
func loopback(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// readScreens asks the model about each screen handed over, one at a time, until ctx
// ends; an answer that is no help (an error, UNKNOWN, a screen gone) is logged and
// dropped: the pane keeps its pack's state.
func (d *Daemon) readScreens(ctx context.Context) {
	for {
		var ask modelAsk
		select {
		case <-ctx.Done():
			return
		case ask = <-d.reader.asks:
		}
		c := d.reader.client.Load()
		if c == nil {
			continue
		}
		ans, err := c.Read(ctx, ask.text)
		if err != nil {
			d.log.Debug().Err(err).Str("pane", ask.pane).Msg("model not asked, or no usable answer")
			continue
		}
		taken, err := d.w.Model(ask.pane, ask.hash, ans.State, ans.Summary, time.Now())
		d.log.Info().Str("pane", ask.pane).Str("state", string(ans.State)).Str("summary", ans.Summary).
			Strs("actions_needed", ans.ActionsNeeded).Bool("taken", taken).AnErr("error", err).Msg("model read a screen")
	}
}
