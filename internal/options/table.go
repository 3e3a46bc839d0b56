package options

// Option is one @paneherd-... tmux option.
type Option struct {
	Name    string // without the "@paneherd-" prefix
	Default string
	Doc     string
	// Kind is how a value is checked: one of Allowed, a duration, a count (0 or more), a
	// positive whole number, SSH destinations separated by spaces, or any text.
	Kind    kind
	Allowed []string
}

type kind int

const (
	text kind = iota
	enum
	duration
	count
	positive
	hostList
)

var onOff = []string{"on", "off"}

// Prefix starts every paneherd option.
const Prefix = "@paneherd-"

// All is every option, in the order docs/options.md lists them (a test writes that table
// from this one).
var All = []Option{
	{"status-mode", "push", "`push`: the daemon sets `@paneherd_status` when the line changes and tmux redraws at once, no fork; `job`: `#(paneherd bar --badges)`, which prints what `status --short` does, refreshed every `status-interval`", enum, []string{"push", "job"}},
	{"format", "[{name}: {state}]", "one badge; `{name}`, `{state}`, `{icon}`, `{summary}` are replaced (escaped); a change of `{summary}` alone shows within a second, a change of state at once", text, nil},
	{"layout", "badges", "`badges`: a badge per pane, in `@paneherd-format`; `compact`: a count per state with its icon, and the names of the panes that need you (`✔3 …2 ✖1 docs ?1 api`), for many agents in one bar", enum, []string{"badges", "compact"}},
	{"show", "all", "which panes the bar shows: `all`; `active` (not plain shells sitting idle at their prompt); `attention` (only panes that need a person: NEEDS_CONFIRMATION, ERROR, STALLED, and agents READY within the last 10 minutes)", enum, []string{"all", "active", "attention"}},
	{"name-max", "24", "longest `{name}` in a badge, in characters: a longer name is cut to this many, the last being `…`", positive, nil},
	{"style-ready", "fg=green", "tmux style of READY badges (empty: none)", text, nil},
	{"style-busy", "fg=yellow", "style of BUSY badges", text, nil},
	{"style-needs-confirmation", "fg=red,bold", "style of NEEDS_CONFIRMATION badges", text, nil},
	{"style-error", "fg=red", "style of ERROR badges", text, nil},
	{"style-stalled", "fg=magenta", "style of STALLED badges", text, nil},
	{"style-offline", "fg=colour244", "style of OFFLINE badges", text, nil},
	{"style-unknown", "fg=colour244", "style of UNKNOWN badges", text, nil},
	{"icon-ready", "✔", "`{icon}` for READY", text, nil},
	{"icon-busy", "…", "`{icon}` for BUSY", text, nil},
	{"icon-needs-confirmation", "?", "`{icon}` for NEEDS_CONFIRMATION", text, nil},
	{"icon-error", "✖", "`{icon}` for ERROR", text, nil},
	{"icon-stalled", "⏸", "`{icon}` for STALLED", text, nil},
	{"icon-offline", "⨯", "`{icon}` for OFFLINE", text, nil},
	{"icon-unknown", "·", "`{icon}` for UNKNOWN", text, nil},
	{"observer", "control", "`control`: tmux control mode tells the daemon which panes print; it looks at those at once (an animation only when it prints something new or stops; a stream five times a second while it lasts), and at everything every 5 s; every other tmux command of the daemon goes through its control client too, no process (it shows up as control clients in `list-clients`); `poll`: list and capture every pane every tick. `control` falls back to `poll` when it cannot attach", enum, []string{"control", "poll"}},
	{"tick", "1s", "with `poll`, how often the daemon looks at every pane", duration, nil},
	{"log-level", "info", "daemon log level: debug, info, warn, error", enum, []string{"debug", "info", "warn", "error"}},
	{"key-menu", "a", "prefix key: a menu of workers and their states; choosing one jumps to it (empty: no binding)", text, nil},
	{"key-next", "A", "prefix key: jump to the next pane needing attention: NEEDS_CONFIRMATION, then ERROR, then newly READY", text, nil},
	{"key-send", "S", "prefix key: type a prompt and send it to the current pane (paneherd send)", text, nil},
	{"key-send-to", "W", "prefix key: name a worker, type a prompt, send it there", text, nil},
	{"key-approve", "Y", "prefix key: approve the dialog in the current pane, else in the pane waiting longest", text, nil},
	{"key-deny", "X", "prefix key: deny that dialog", text, nil},
	{"send-quiet", "20s", "`send` waits until nobody has typed in the target's session for this long", duration, nil},
	{"send-recheck", "5s", "while waiting, `send` looks again this often", duration, nil},
	{"send-defer-max", "60s", "`send` gives up waiting after this long: DEFER_TIMEOUT", duration, nil},
	{"send-ack-timeout", "8s", "a sent prompt must be taken (pane BUSY, or its input box changed) within this; then 2 retries after 2 s and 4 s", duration, nil},
	{"send-limit", "10", "at most this many sends, approvals and denials per pane per minute: TRIGGER_RATE_LIMITED", count, nil},
	{"mcp-send", "agents", "which panes MCP's `send_prompt` may type into: `agents`, those an agent's pack reads and managed workers; `any`, plain shells too (a shell runs whatever it is typed)", enum, []string{"agents", "any"}},
	{"workspaces", "", "directories `paneherd create` may start workers in (and under), separated by `:`; empty: your home directory", text, nil},
	{"worktree-dir", "", "where `create --worktree BRANCH` makes the worktree (`<dir>/<branch>`); empty: `<repository>.worktrees/<branch>` beside the repository", text, nil},
	{"nudge-every", "15s", "a STALLED managed worker is nudged (its pack's nudge keys), then looked at again this long after", duration, nil},
	{"nudges", "2", "after this many nudges a still frozen managed worker is escalated: a critical notification, its last lines kept in its history", count, nil},
	{"retire-wait", "10s", "`retire` gives a worker this long to quit after its interrupt keys before it kills the pane", duration, nil},
	{"health-min", "5m", "the least time between two health prompts (`create --health-every`) to one worker", duration, nil},
	{"llm", "off", "`on`: a screen no pack understands (UNKNOWN), or one an agent's hook disputed past its freshness window, is read by a language model through an OpenAI-compatible API, asynchronously, and a dialog's or an error's notification gets its summary; the key is `OPENROUTER_API_KEY` for OpenRouter, `OPENAI_API_KEY` for OpenAI, `PANEHERD_LLM_KEY` for any other, from tmux's environment or paneherd's `.env`", enum, onOff},
	{"llm-url", "https://openrouter.ai/api/v1", "the OpenAI-compatible API the model is asked through; a local server (llama.cpp, Ollama, vLLM) works by its URL, e.g. `http://127.0.0.1:11434/v1`, and needs no key", text, nil},
	{"llm-model", "", "the model to ask, as the API names it (required when `@paneherd-llm` is on)", text, nil},
	{"llm-per-minute", "6", "at most this many questions to the model a minute", positive, nil},
	{"llm-per-day", "500", "at most this many questions to the model a day", positive, nil},
	{"llm-notify-wait", "3s", "with `@paneherd-llm` on, a notification of a dialog or an error waits at most this long (10 s at most) for the model's summary of the screen and what it asks of you, and goes out with the pack's words when the model is slower; `0s`: notifications never ask the model", duration, nil},
	{"notify-backend", "auto", "`auto`: desktop notification when a session bus is known (on macOS: osascript), else a message on the attached tmux clients; `desktop`, `tmux`, or `off`, which silences every backend (the ones below too)", enum, []string{"auto", "desktop", "tmux", "off"}},
	{"notify-terminal", "off", "also ask the terminals of the attached clients to notify, which reaches you over SSH: `osc9`, `osc777`, `osc99`, or `auto` (chosen per client from what tmux knows of its terminal); `off`", enum, []string{"auto", "osc9", "osc777", "osc99", "off"}},
	{"notify-command", "", "also run this program for each notification (`'PROGRAM ARGS'`, split as a shell splits words, never run by a shell), the event in `PANEHERD_*` environment variables and as JSON on its stdin; empty: none", text, nil},
	{"notify-command-timeout", "10s", "the notification command is ended after this long", duration, nil},
	{"notify-webhook", "", "also post each notification to this http(s) URL; its secret parts are never shown; empty: none", text, nil},
	{"notify-webhook-format", "json", "what the webhook posts: `json` (paneherd's event object), `ntfy` (ntfy.sh or your own ntfy), `slack` (`{\"text\": …}`: Slack, Discord-compatible and Mattermost incoming webhooks)", enum, []string{"json", "ntfy", "slack"}},
	{"notify-sound", "off", "also play a sound for a dialog, an error and finished work: `on` (the platform's sound), a sound file, or `off`", text, nil},
	{"notify-needs-confirmation", "on", "notify when a pane starts waiting for a confirmation (critical urgency)", enum, onOff},
	{"notify-finished", "on", "notify when a pane goes from BUSY to READY: its work is done (says how long it ran)", enum, onOff},
	{"notify-error", "on", "notify when a pane enters ERROR (critical urgency)", enum, onOff},
	{"notify-stalled", "on", "notify when a pane enters STALLED", enum, onOff},
	{"notify-exited", "on", "notify when a pane's process dies (remain-on-exit), with its exit status when known, or an agent's CLI exits to its shell", enum, onOff},
	{"notify-supervisor", "on", "notify when a managed worker crashed too often and is no longer restarted, stayed frozen after its nudges, or stopped getting its health prompts (critical urgency)", enum, onOff},
	{"notify-finished-min", "10s", "notify of finished work only when the pane was BUSY at least this long", duration, nil},
	{"notify-dedupe", "90s", "the same pane and state notify at most once within this window; a dialog, once while it waits: one that appears anew (the pane left it for 2 s or more) notifies again", duration, nil},
	{"notify-pane-limit", "3", "at most this many notifications per pane per minute; a dialog is never held back by it", count, nil},
	{"notify-burst", "1s", "changes of several panes this close together become one summary notification", duration, nil},
	{"notify-bell", "off", "also ring the terminal bell of attached clients when notifying through tmux", enum, onOff},
	{"hosts", "", "other machines whose panes the bar shows too, separated by spaces: SSH destinations as `ssh` takes them (`devbox`, `me@build.example`, a `Host` of `~/.ssh/config`); the daemon keeps one `ssh HOST paneherd follow --json` open per host, with your own ssh's config, keys and agent, never prompting, and shows `[devbox/api: NEEDS_CONFIRMATION]`, `[devbox: unreachable]` ([fleet.md](fleet.md)); empty: none", hostList, nil},
	{"metrics-listen", "", "a loopback address (`127.0.0.1:9464`) where the daemon serves its metrics at `/metrics` for a Prometheus scraper; empty: not served (`paneherd metrics` prints them either way). Only loopback is served: the metrics name panes and workers, and the endpoint has no authentication; another address is refused and logged", text, nil},
}
