// Package llm asks a language model what a terminal screen shows: the third witness, after
// the packs and the agent hooks, for screens neither settles (issue 17).
//
// It speaks the OpenAI-compatible chat-completions API (OpenRouter by default; llama.cpp,
// Ollama and vLLM serve the same) with plain net/http and encoding/json rather than a
// client library: it makes one POST with one JSON shape and reads one field back, and a
// library would add a dependency and its init cost to every paneherd process, while hooks
// start the binary many times a minute. net/http is linked already, for the metrics
// listener.
//
// Every screen is masked (secrets.Mask) before it leaves the machine. Requests are bounded
// (a timeout, a per-minute limit, a daily budget), answers are cached by a hash of the
// masked screen, and an answer that fails validation is an error, never a guess.
package llm

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/state"
)

// DefaultURL is OpenRouter's OpenAI-compatible API.
const DefaultURL = "https://openrouter.ai/api/v1"

// Defaults for the zero fields of a Config.
const (
	DefaultTimeout   = 10 * time.Second
	DefaultPerMinute = 6
	DefaultPerDay    = 500
	DefaultCacheSize = 256
)

// Config says where and how to ask.
type Config struct {
	URL       string        // OpenAI-compatible base URL; default DefaultURL
	Model     string        // required
	Key       string        // bearer key ("" allowed for a local server)
	Timeout   time.Duration // default 10 s
	PerMinute int           // at most this many requests a minute (default 6)
	PerDay    int           // daily budget (default 500), reset at local midnight
	CacheSize int           // answers kept by screen hash (default 256)
}

// withDefaults fills the zero fields.
func (cfg Config) withDefaults() Config {
	if cfg.URL == "" {
		cfg.URL = DefaultURL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.PerMinute <= 0 {
		cfg.PerMinute = DefaultPerMinute
	}
	if cfg.PerDay <= 0 {
		cfg.PerDay = DefaultPerDay
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	return cfg
}

// Answer is the model's reading of a screen, validated.
type Answer struct {
	State         state.State `json:"state"`          // one of the states a pack rule may set, or UNKNOWN
	Summary       string      `json:"summary"`        // <= 120 runes, one line
	ActionsNeeded []string    `json:"actions_needed"` // at most 5, each <= 120 runes
}

// Client asks one OpenAI-compatible chat-completions endpoint; safe for concurrent use.
type Client struct {
	cfg      Config
	http     *http.Client
	now      func() time.Time // the clock; tests move it
	requests atomic.Int64

	mu     sync.Mutex
	cache  *cache
	limits limits
}

// New returns a client for cfg, its zero fields set to the defaults. It makes no request.
func New(cfg Config) *Client {
	cfg = cfg.withDefaults()
	return &Client{
		cfg:   cfg,
		http:  &http.Client{},
		now:   time.Now,
		cache: newCache(cfg.CacheSize),
	}
}

// Read asks the model what the screen shows. The screen is masked (secrets.Mask) before it
// is sent. A cached answer (by a hash of the masked screen) is returned without a request;
// over the per-minute limit or the daily budget it returns ErrLimited without a request.
// A timeout, an HTTP status, malformed JSON or an answer that fails validation is an error.
func (c *Client) Read(ctx context.Context, screen string) (Answer, error) {
	if c.cfg.Model == "" {
		return Answer{}, ErrNoModel
	}
	masked := secrets.Mask(screen)
	key := sha256.Sum256([]byte(masked))
	c.mu.Lock()
	if a, ok := c.cache.get(key); ok {
		c.mu.Unlock()
		return a, nil
	}
	err := c.limits.take(c.now(), c.cfg.PerMinute, c.cfg.PerDay)
	c.mu.Unlock()
	if err != nil {
		return Answer{}, err
	}
	a, err := c.ask(ctx, masked)
	if err != nil {
		return Answer{}, fmt.Errorf("llm: %s at %s: %w", c.cfg.Model, c.cfg.URL, err)
	}
	c.mu.Lock()
	c.cache.put(key, a)
	c.mu.Unlock()
	return a, nil
}

// Requests is how many HTTP requests were made (for tests and logs).
func (c *Client) Requests() int { return int(c.requests.Load()) }
