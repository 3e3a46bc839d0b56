package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/paneherd/paneherd/internal/deliver"
	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/outcome"
	"github.com/paneherd/paneherd/internal/secrets"
	"github.com/paneherd/paneherd/internal/state"
	"github.com/paneherd/paneherd/internal/wire"
	"github.com/paneherd/paneherd/packs"
)

// Tool arguments. A field without omitempty is required.
type (
	noArgs     struct{}
	workerArgs struct {
		Worker string `json:"worker" jsonschema:"the worker: its name as list_workers shows it, a pane id (%3) or session:window.pane; HOST:NAME for one on another machine (its host in list_workers)"`
	}
	readArgs struct {
		Worker string `json:"worker" jsonschema:"the worker: its name, a pane id (%3) or session:window.pane; HOST:NAME on another machine"`
		Lines  int    `json:"lines,omitempty" jsonschema:"how many of its last lines (default 40, at most 2000)"`
	}
	sendArgs struct {
		Worker   string `json:"worker" jsonschema:"the worker: its name, a pane id (%3) or session:window.pane; HOST:NAME on another machine"`
		Text     string `json:"text" jsonschema:"the prompt"`
		Queue    bool   `json:"queue,omitempty" jsonschema:"when the worker is not READY, deliver the prompt when it next is"`
		Envelope string `json:"envelope,omitempty" jsonschema:"a trigger id: the prompt goes as [TRIGGER id=ID]...[/TRIGGER], and ACK_TRIGGER:ID in the pane acknowledges it"`
	}
	waitArgs struct {
		Worker         string `json:"worker" jsonschema:"the worker: its name, a pane id (%3) or session:window.pane; HOST:NAME on another machine"`
		Until          string `json:"until,omitempty" jsonschema:"wait for this state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, EXITED, OFFLINE, UNKNOWN) instead of until it is done"`
		TimeoutSeconds int    `json:"timeout_seconds" jsonschema:"give up after this many seconds (1 to 3600)"`
	}
	approveArgs struct {
		Worker string `json:"worker" jsonschema:"the worker whose dialog to approve (HOST:NAME on another machine)"`
		Always bool   `json:"always,omitempty" jsonschema:"choose the dialog's 'don't ask again' answer, where the CLI offers one"`
	}
	historyArgs struct {
		Worker string `json:"worker,omitempty" jsonschema:"one worker, retired ones too (HOST:NAME on another machine; default: all here)"`
		Limit  int    `json:"limit,omitempty" jsonschema:"the newest this many of each kind (default 50)"`
	}
	createArgs struct {
		Dir            string   `json:"dir" jsonschema:"the directory it works in (absolute; inside the allowed workspaces)"`
		Name           string   `json:"name,omitempty" jsonschema:"its name (default: the directory's, or the branch's)"`
		Pack           string   `json:"pack,omitempty" jsonschema:"the CLI: claude, codex, gemini, opencode, qwen; its launch command starts it"`
		Session        string   `json:"session,omitempty"`
		Worktree       string   `json:"worktree,omitempty" jsonschema:"make a git worktree of this branch for it"`
		Command        []string `json:"command,omitempty" jsonschema:"run this instead of the pack's launch command"`
		Restart        string   `json:"restart,omitempty" jsonschema:"on-failure (default), always or never"`
		Prompt         string   `json:"prompt,omitempty" jsonschema:"a first prompt, sent once it is READY"`
		TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"how long to wait for READY (default 120)"`
		HandoffAt      int      `json:"handoff_at,omitempty" jsonschema:"with handoff_prompt: a percent of its model's context window (1 to 100); once its context passes it and it is READY, handoff_prompt is sent, once, and again only after its context fell below"`
		HandoffPrompt  string   `json:"handoff_prompt,omitempty" jsonschema:"the prompt handoff_at sends (say: write down where you are, then stop)"`
	}
	retireArgs struct {
		Name string `json:"name" jsonschema:"the managed worker's name (HOST:NAME on another machine)"`
	}
)

// Tool results beyond the herd's own types.
type (
	workersOut struct {
		Panes []wire.PaneStatus `json:"panes"`
	}
	screenOut struct {
		PaneID string `json:"pane_id"`
		Name   string `json:"name"`
		State  string `json:"state"`
		Text   string `json:"text"`
		Masked int    `json:"masked" jsonschema:"how many secrets were masked in text"`
	}
)

func (s *server) addTools() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true}
	addTool(s, &mcp.Tool{Name: "list_workers", Annotations: readOnly,
		Description: "Every pane paneherd watches, with its state (READY, BUSY, NEEDS_CONFIRMATION, ERROR, STALLED, EXITED, OFFLINE, UNKNOWN), summary and, for a managed worker, its supervisor record; then those of the other machines it follows, each with its host: name one as HOST:NAME. What `paneherd status --json` says."}, s.listWorkers)
	addTool(s, &mcp.Tool{Name: "read_screen", Annotations: readOnly,
		Description: "A worker's last lines as plain text, with what looks like API keys, tokens and passwords masked."}, s.readScreen)
	addTool(s, &mcp.Tool{Name: "wait_worker", Annotations: readOnly,
		Description: "Wait until a worker is done (READY after working), needs a person, fails or stalls, or until it reaches `until`; reports progress while it waits. The same final states as `paneherd wait`."}, s.waitWorker)
	addTool(s, &mcp.Tool{Name: "history", Annotations: readOnly,
		Description: "A worker's (or every worker's) state transitions, notifications, actions and runtime events, oldest first."}, s.history)
	if s.opts.ReadOnly {
		return
	}
	addTool(s, &mcp.Tool{Name: "send_prompt",
		Description: "Send a prompt to a READY worker, safely, with every check of `paneherd send` (a person typing, a draft in its input box, a dialog); it must be acknowledged. Only agents' panes and managed workers, not plain shells. Outcomes: DELIVERED, QUEUED, NOT_READY, OPERATOR_BUSY, ACK_TIMEOUT, ..."}, s.sendPrompt)
	addTool(s, &mcp.Tool{Name: "approve_dialog",
		Description: "Approve the confirmation dialog a worker shows, only if paneherd knows it and it is live on screen now."}, s.approve)
	addTool(s, &mcp.Tool{Name: "deny_dialog",
		Description: "Deny the confirmation dialog a worker shows, only if paneherd knows it and it is live on screen now."}, s.deny)
	addTool(s, &mcp.Tool{Name: "create_worker",
		Description: "Start a managed worker in a directory (or a git worktree): a tmux window running the pack's CLI, kept alive by paneherd; waits until it is READY and sends `prompt`."}, s.createWorker)
	addTool(s, &mcp.Tool{Name: "retire_worker",
		Description: "Stop a managed worker for good: its CLI is interrupted, its pane closed; its history stays."}, s.retireWorker)
}

func (s *server) listWorkers(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (workersOut, *mcp.CallToolResult, error) {
	panes, err := s.d.StatusAll()
	return workersOut{Panes: maskPanes(panes)}, nil, err
}

// pane resolves a worker as every tool names it; none is a protocol error, since the
// call cannot be carried out as asked.
func (s *server) pane(target string) (wire.Pane, error) {
	p, err := s.d.Pane(target)
	if errors.Is(err, wire.ErrNoTarget) {
		return p, invalid("%v (list_workers shows the workers)", err)
	}
	return p, err
}

func (s *server) readScreen(ctx context.Context, _ *mcp.CallToolRequest, in readArgs) (screenOut, *mcp.CallToolResult, error) {
	lines := in.Lines
	if lines == 0 {
		lines = 40
	}
	if lines < 1 || lines > 2000 {
		return screenOut{}, nil, invalid("read_screen: lines %d: give 1 to 2000", in.Lines)
	}
	p, err := s.pane(in.Worker)
	if err != nil {
		return screenOut{}, nil, err
	}
	text, err := s.d.Tail(ctx, p.ID, lines)
	if err != nil {
		return screenOut{}, nil, err
	}
	return screenOut{PaneID: p.ID, Name: p.Name, State: p.State, Text: secrets.Mask(text), Masked: secrets.Count(text)}, nil, nil
}

func (s *server) sendPrompt(ctx context.Context, _ *mcp.CallToolRequest, in sendArgs) (wire.Result, *mcp.CallToolResult, error) {
	p, err := s.pane(in.Worker)
	if err != nil {
		return wire.Result{}, nil, err
	}
	req := wire.SendRequest{ID: herd.NewTriggerID(), PaneID: p.ID, Text: in.Text, Envelope: in.Envelope, AgentsOnly: s.agentsOnly(ctx, p)}
	if _, err := deliver.Payload(req); err != nil {
		return wire.Result{}, nil, invalid("send_prompt: %v", err)
	}
	res, err := s.d.Send(ctx, wire.SendAsk{SendRequest: req, Queue: in.Queue})
	res = maskResult(res)
	return res, outcomeResult(res.Outcome, res.Detail), err
}

// agentsOnly says whether a send to the pane must find an agent there
// (wire.SendRequest.AgentsOnly, which the queue and the send's own look enforce): by
// default (@paneherd-mcp-send agents) send_prompt types only into panes an agent's pack
// reads and into managed workers, never into a plain shell, which runs whatever it is typed.
func (s *server) agentsOnly(ctx context.Context, p wire.Pane) bool {
	values, err := options.Load(ctx, s.d.Server)
	if err != nil {
		values = options.Defaults() // tmux cannot say: the safe default
	}
	if options.MCPSend.In(values) == "any" {
		return false
	}
	workers, _ := s.d.Workers() // a registry being rewritten: the pane counts as unmanaged
	for _, w := range workers {
		if w.PaneID == p.ID {
			return false
		}
	}
	return true
}

func (s *server) waitWorker(ctx context.Context, req *mcp.CallToolRequest, in waitArgs) (wire.WaitResult, *mcp.CallToolResult, error) {
	if in.TimeoutSeconds < 1 || in.TimeoutSeconds > 3600 {
		return wire.WaitResult{}, nil, invalid("wait_worker: timeout_seconds %d: give 1 to 3600", in.TimeoutSeconds)
	}
	var until state.State
	if in.Until != "" {
		var err error
		if until, err = state.Parse(in.Until); err != nil {
			return wire.WaitResult{}, nil, invalid("wait_worker: until: %v", err)
		}
	}
	// The wait finds the worker itself: it rides out a daemon being revived.
	timeout := time.Duration(in.TimeoutSeconds) * time.Second
	res, err := s.d.WaitProgress(ctx, in.Worker, until, timeout, progress(ctx, req, timeout))
	if err == nil && res.FinalState == outcome.NotFound {
		return wire.WaitResult{}, nil, invalid("%s (list_workers shows the workers)", res.Summary)
	}
	res = maskWait(res)
	return res, outcomeResult(res.FinalState, res.Summary), err
}

// progress reports a wait's progress to the client, if it asked for it (a progress
// token), at most once a second and whenever the worker's state changes.
func progress(ctx context.Context, req *mcp.CallToolRequest, timeout time.Duration) func(wire.WaitResult) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	var last time.Time
	var lastState string
	return func(r wire.WaitResult) {
		if time.Since(last) < time.Second && r.State == lastState {
			return
		}
		last, lastState = time.Now(), r.State
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(r.ElapsedMS) / 1000, Total: timeout.Seconds(),
			Message: strings.TrimSuffix(fmt.Sprintf("%s is %s: %s", r.Name, r.State, secrets.Mask(r.Summary)), ": ")})
	}
}

func (s *server) approve(ctx context.Context, _ *mcp.CallToolRequest, in approveArgs) (wire.Result, *mcp.CallToolResult, error) {
	choice := packs.ChoiceApprove
	if in.Always {
		choice = packs.ChoiceAlways
	}
	return s.answer(ctx, in.Worker, choice)
}

func (s *server) deny(ctx context.Context, _ *mcp.CallToolRequest, in workerArgs) (wire.Result, *mcp.CallToolResult, error) {
	return s.answer(ctx, in.Worker, packs.ChoiceDeny)
}

func (s *server) answer(ctx context.Context, worker, choice string) (wire.Result, *mcp.CallToolResult, error) {
	p, err := s.pane(worker)
	if err != nil {
		return wire.Result{}, nil, err
	}
	res, err := s.d.Answer(ctx, wire.AnswerRequest{ID: herd.NewTriggerID(), PaneID: p.ID, Choice: choice})
	res = maskResult(res)
	return res, outcomeResult(res.Outcome, res.Detail), err
}

func (s *server) history(ctx context.Context, _ *mcp.CallToolRequest, in historyArgs) (wire.History, *mcp.CallToolResult, error) {
	limit := in.Limit
	if limit == 0 {
		limit = 50
	}
	if limit < 0 {
		return wire.History{}, nil, invalid("history: limit %d: give a positive number", limit)
	}
	h, err := s.d.HistoryOf(ctx, in.Worker, limit)
	if errors.Is(err, wire.ErrNoTarget) {
		return wire.History{}, nil, invalid("%v (list_workers shows the workers)", err)
	}
	return maskHistory(h), nil, err
}

func (s *server) createWorker(ctx context.Context, _ *mcp.CallToolRequest, in createArgs) (wire.Created, *mcp.CallToolResult, error) {
	timeout := 2 * time.Minute
	if in.TimeoutSeconds != 0 {
		if in.TimeoutSeconds < 1 || in.TimeoutSeconds > 3600 {
			return wire.Created{}, nil, invalid("create_worker: timeout_seconds %d: give 1 to 3600", in.TimeoutSeconds)
		}
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	ask := wire.CreateAsk{Dir: in.Dir, Name: in.Name, Pack: in.Pack, Session: in.Session, Worktree: in.Worktree,
		Command: in.Command, Restart: in.Restart, HandoffAt: in.HandoffAt, HandoffPrompt: in.HandoffPrompt}
	c, err := s.d.Launch(ctx, ask, in.Prompt, timeout)
	c = maskCreated(c)
	switch {
	case err != nil && c.Worker.Name == "":
		return c, nil, err // the daemon's refusal: nothing was created
	case err != nil:
		// Created, then the wait or the prompt failed: the worker runs, and says so.
		res := &mcp.CallToolResult{}
		res.SetError(fmt.Errorf("%s was created, then: %w", c.Worker.Name, err))
		return c, res, nil
	}
	if r := outcomeResult(c.Started.FinalState, c.Started.Summary); r != nil {
		return c, r, nil
	}
	if c.Prompt != nil {
		return c, outcomeResult(c.Prompt.Outcome, c.Prompt.Detail), nil
	}
	return c, nil, nil
}

func (s *server) retireWorker(ctx context.Context, _ *mcp.CallToolRequest, in retireArgs) (wire.Worker, *mcp.CallToolResult, error) {
	w, err := s.d.Retire(ctx, in.Name)
	if errors.Is(err, wire.ErrNoTarget) {
		return wire.Worker{}, nil, invalid("%v", err)
	}
	return w, nil, err
}

// outcomeResult is nil for a successful outcome; else a tool error that says the outcome,
// why, and what to do.
func outcomeResult(o outcome.Outcome, detail string) *mcp.CallToolResult {
	if outcome.OK(o) {
		return nil
	}
	msg := string(o)
	if detail != "" {
		msg += ": " + detail
	}
	if do := advice[o]; do != "" {
		msg += ". " + do
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// advice says what an orchestrator can do after each outcome that is not a success.
var advice = map[outcome.Outcome]string{
	outcome.NotReady:           "Call wait_worker until it is READY, or send with queue:true.",
	outcome.OperatorBusy:       "A person is at that pane (typing, scrolling): try again later.",
	outcome.DeferTimeout:       "A person kept typing in that session: try again later.",
	outcome.AckTimeout:         "The prompt was not taken: read_screen to see what the worker shows.",
	outcome.Interrupted:        "The daemon stopped during the send: read_screen before sending it again.",
	outcome.TriggerRateLimited: "Too many actions on that pane lately: wait a minute.",
	outcome.TargetNotFound:     "list_workers shows the workers there are.",
	outcome.PaneDead:           "Its process has exited.",
	outcome.SendKeysError:      "tmux refused: read_screen, and tell a person if it persists.",
	outcome.NotADialog:         "No dialog paneherd may answer is on screen: read_screen; questions are a person's to answer.",
	outcome.DialogStillShown:   "The keys were pressed and the dialog stayed: read_screen.",
	outcome.NeedsConfirmation:  "It waits for a person: approve_dialog or deny_dialog if you may, else tell a person.",
	outcome.Crashed:            "It failed or its pane is gone: read_screen or history.",
	outcome.Stuck:              "Its screen is frozen: read_screen, and tell a person.",
	outcome.Timeout:            "It is not done yet: wait again, or read_screen.",
	outcome.NotFound:           "list_workers shows the workers there are.",
}
