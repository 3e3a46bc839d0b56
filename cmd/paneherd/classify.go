package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/paneherd/paneherd/internal/llm"
	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/packs"
)

var cmdClassify = command{
	name:    "classify",
	summary: "classify one captured screen (a file or -) and say which rule decided",
	usage:   "classify [--pack NAME|auto] [--json] [--explain] [--llm] FILE|-",
	about: `Classifies one captured screen, as printed by 'tmux capture-pane -p' (plain) or
'tmux capture-pane -p -e' (with colours), read from FILE or stdin (-).`,
	link: "[packs.md](packs.md)",
	flags: func(fs *flag.FlagSet) runFunc {
		var o classifyOptions
		fs.StringVar(&o.pack, "pack", "auto", "read it with the pack `NAME` (default auto: by the packs' screen signatures)")
		fs.BoolVar(&o.json, "json", false, `print {"state":...,"pack":...,"rule":...,"summary":...}`)
		fs.BoolVar(&o.explain, "explain", false, "show how the screen was read: the lines the pack reads, the input box, "+
			"the dialog (the bottom-most interaction), and every rule's verdict")
		fs.BoolVar(&o.llm, "llm", false, "also ask a language model (PANEHERD_LLM_URL, default OpenRouter; "+
			"PANEHERD_LLM_MODEL; key OPENROUTER_API_KEY for OpenRouter, OPENAI_API_KEY for OpenAI, PANEHERD_LLM_KEY "+
			"for another, or in paneherd's .env) and print its reading beside the pack's; the screen is masked first")
		return func(ctx context.Context, e *env, args []string) error { return runClassify(ctx, e, fs, &o, args) }
	},
}

// maxClassifyInput bounds what classify reads: a screen is kilobytes; a pipe of a huge
// log is cut to its end, which is where a screen's state is decided.
const maxClassifyInput = 8 << 20

type classifyOptions struct {
	pack    string
	json    bool
	explain bool
	llm     bool
}

func runClassify(ctx context.Context, e *env, fs *flag.FlagSet, o *classifyOptions, args []string) error {
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usagef("classify takes one FILE (or - for stdin)")
	}
	raw, err := readScreen(e, rest[0])
	if err != nil {
		return err
	}
	set := packs.Load(packs.UserDir(e.getenv))
	warnProblems(e, set)
	sc := screen.Parse(raw)
	pk, err := pickPack(set, o.pack, sc)
	if err != nil {
		return err
	}
	if o.explain {
		return printExplanation(e.stdout, pk.Explain(sc), o.json)
	}
	if o.llm {
		return classifyWithModel(ctx, e, pk.Classify(sc), sc.Text(), o.json)
	}
	return printResult(e.stdout, pk.Classify(sc), o.json)
}

// classifyWithModel prints the pack's reading and the model's, side by side.
func classifyWithModel(ctx context.Context, e *env, r packs.Result, text string, asJSON bool) error {
	cfg := llm.Config{URL: cmp.Or(e.getenv("PANEHERD_LLM_URL"), llm.DefaultURL), Model: e.getenv("PANEHERD_LLM_MODEL")}
	cfg.Key = llm.KeyFor(cfg.URL, e.getenv, llm.EnvFile(e.getenv))
	if cfg.Model == "" {
		return usagef("--llm needs PANEHERD_LLM_MODEL: the model to ask, as the API names it")
	}
	if cfg.Key == "" && !llm.Local(cfg.URL) {
		return fmt.Errorf("--llm: no key for %s: set %s in the environment or in %s (a key is never sent over plain http to another machine)",
			cfg.URL, llm.KeyName(cfg.URL), llm.EnvFile(e.getenv))
	}
	ans, err := llm.New(cfg).Read(ctx, text)
	if err != nil {
		return fmt.Errorf("the model (%s at %s) gave no usable answer: %w", cfg.Model, cfg.URL, err)
	}
	if asJSON {
		return json.NewEncoder(e.stdout).Encode(struct {
			Pack  packs.Result `json:"pack"`
			Model llm.Answer   `json:"model"`
		}{r, ans})
	}
	_, err = fmt.Fprintf(e.stdout, "%-8s %-20s %s\n%-8s %-20s %s\n%-8s %-20s %s\n", "", "pack", "model",
		"state", r.State, ans.State, "summary", clipTo(r.Summary, 20), ans.Summary)
	for _, a := range ans.ActionsNeeded {
		fmt.Fprintf(e.stdout, "%-8s %-20s %s\n", "action", "", a)
	}
	return err
}

// clipTo cuts s to n runes for a column.
func clipTo(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func printExplanation(w io.Writer, ex packs.Explanation, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(ex)
	}
	ex.Print(w)
	return nil
}

func readScreen(e *env, name string) (string, error) {
	var r io.Reader = e.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
		}
		defer f.Close()
		r = f
	}
	data, err := readTail(r, maxClassifyInput)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	return string(data), nil
}

// readTail reads r to the end and keeps its last max bytes.
func readTail(r io.Reader, max int) ([]byte, error) {
	buf := make([]byte, 0, 64<<10)
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if len(buf) > 2*max {
			buf = append(buf[:0], buf[len(buf)-max:]...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(buf) > max {
		buf = buf[len(buf)-max:]
	}
	return buf, nil
}

// unwrapPath drops the *PathError (or a rename's *LinkError) wrapper, whose message
// repeats the file names.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}

func pickPack(set *packs.Set, name string, sc screen.Screen) (*packs.Pack, error) {
	if name != "auto" {
		return set.Get(name)
	}
	if pk := set.ForScreen(sc); pk != nil {
		return pk, nil
	}
	return set.Get("shell")
}

func printResult(w io.Writer, r packs.Result, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	rule := r.Rule
	if rule == "" {
		rule = "(none matched)"
	}
	_, err := fmt.Fprintf(w, "%s\npack:    %s\nrule:    %s\nsummary: %s\n", r.State, r.Pack, rule, r.Summary)
	return err
}

// warnProblems reports user packs that could not be loaded; the others keep working.
func warnProblems(e *env, set *packs.Set) {
	for _, p := range set.Problems {
		fmt.Fprintf(e.stderr, "paneherd: warning: pack not loaded: %v\n", p)
	}
}
