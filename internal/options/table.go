package options

// Every option, declared once with its default and its line in docs/options.md, in the
// order that page lists them.
var (
	StatusMode = enum("status-mode", "push",
		"`push`: the daemon sets `@paneherd_status` when the line changes and tmux redraws at once, no fork; `job`: `#(paneherd bar --badges)`, which prints what `status --short` does, refreshed every `status-interval`",
		"push", "job")
	Format = text("format", "[{name}: {state}{context}]",
		"one badge; `{name}`, `{state}`, `{icon}`, `{summary}` are replaced (escaped), `{context}` by a space and the pane's context use (` 72%`) once it reaches `@paneherd-context-show`, else by nothing; a change of `{summary}` alone shows within a second, a change of state at once")
	Layout = enum("layout", "badges",
		"`badges`: a badge per pane, in `@paneherd-format`; `compact`: a count per state with its icon, and the names of the panes that need you (`✔3 …2 ✖1 docs ?1 api`), for many agents in one bar",
		"badges", "compact")
	Show = enum("show", "all",
		"which panes the bar shows: `all`; `active` (not plain shells sitting idle at their prompt); `attention` (only panes that need a person: NEEDS_CONFIRMATION, ERROR, STALLED, and agents READY within the last 10 minutes)",
		"all", "active", "attention")
	ContextShow = percent("context-show", "0",
		"the bar shows a pane's context use (how full its agent's context window is, [context.md](context.md)) once it reaches this percent: in a badge through `{context}` (the default format has it: `[api: READY 72%]`), in the compact layout as a group of the panes past it after the states (`ctx api 91%,web 88%`); `1` shows it from 1% (a 0% one, a conversation not begun, does not show); `0`: never")
	NameMax = positive("name-max", "24",
		"longest `{name}` in a badge, in characters: a longer name is cut to this many, the last being `…`")
	StyleReady = text("style-ready", "fg=green",
		"tmux style of READY badges (empty: none)")
	StyleBusy = text("style-busy", "fg=yellow",
		"style of BUSY badges")
	StyleNeedsConfirmation = text("style-needs-confirmation", "fg=red,bold",
		"style of NEEDS_CONFIRMATION badges")
	StyleError = text("style-error", "fg=red",
		"style of ERROR badges")
	StyleStalled = text("style-stalled", "fg=magenta",
		"style of STALLED badges")
	StyleExited = text("style-exited", "fg=colour244",
		"style of EXITED badges")
	StyleOffline = text("style-offline", "fg=colour244",
		"style of OFFLINE badges")
	StyleUnknown = text("style-unknown", "fg=colour244",
		"style of UNKNOWN badges")
	IconReady = text("icon-ready", "✔",
		"`{icon}` for READY")
	IconBusy = text("icon-busy", "…",
		"`{icon}` for BUSY")
	IconNeedsConfirmation = text("icon-needs-confirmation", "?",
		"`{icon}` for NEEDS_CONFIRMATION")
	IconError = text("icon-error", "✖",
		"`{icon}` for ERROR")
	IconStalled = text("icon-stalled", "⏸",
		"`{icon}` for STALLED")
	IconExited = text("icon-exited", "⏏",
		"`{icon}` for EXITED")
	IconOffline = text("icon-offline", "⨯",
		"`{icon}` for OFFLINE")
	IconUnknown = text("icon-unknown", "·",
		"`{icon}` for UNKNOWN")
	Observer = enum("observer", "control",
		"`control`: tmux control mode tells the daemon which panes print; it looks at those at once (an animation only when it prints something new or stops; a stream five times a second while it lasts), and at everything every 5 s; every other tmux command of the daemon goes through its control client too, no process (it shows up as control clients in `list-clients`); `poll`: list and capture every pane every tick. `control` falls back to `poll` when it cannot attach",
		"control", "poll")
	Tick = duration("tick", "1s",
		"with `poll`, how often the daemon looks at every pane")
	LogLevel = enum("log-level", "info",
		"daemon log level: debug, info, warn, error",
		"debug", "info", "warn", "error")
	KeyMenu = text("key-menu", "a",
		"prefix key: a menu of workers and their states; choosing one jumps to it (empty: no binding)")
	KeyNext = text("key-next", "A",
		"prefix key: jump to the next pane needing attention: NEEDS_CONFIRMATION, then ERROR, then newly READY")
	KeySend = text("key-send", "S",
		"prefix key: type a prompt and send it to the current pane (paneherd send)")
	KeySendTo = text("key-send-to", "W",
		"prefix key: name a worker, type a prompt, send it there")
	KeyApprove = text("key-approve", "Y",
		"prefix key: approve the dialog in the current pane, else in the pane waiting longest")
	KeyDeny = text("key-deny", "X",
		"prefix key: deny that dialog")
	SendQuiet = duration("send-quiet", "20s",
		"`send` waits until nobody has typed in the target's session for this long")
	SendRecheck = duration("send-recheck", "5s",
		"while waiting, `send` looks again this often")
	SendDeferMax = duration("send-defer-max", "60s",
		"`send` gives up waiting after this long: DEFER_TIMEOUT")
	SendAckTimeout = duration("send-ack-timeout", "8s",
		"a sent prompt must be taken (pane BUSY, or its input box changed) within this; then 2 retries after 2 s and 4 s")
	SendLimit = count("send-limit", "10",
		"at most this many sends, approvals and denials per pane per minute: TRIGGER_RATE_LIMITED")
	MCPSend = enum("mcp-send", "agents",
		"which panes MCP's `send_prompt` may type into: `agents`, those an agent's pack reads and managed workers; `any`, plain shells too (a shell runs whatever it is typed)",
		"agents", "any")
	Workspaces = text("workspaces", "",
		"directories `paneherd create` may start workers in (and under), separated by `:`; empty: your home directory")
	WorktreeDir = text("worktree-dir", "",
		"where `create --worktree BRANCH` makes the worktree (`<dir>/<branch>`); empty: `<repository>.worktrees/<branch>` beside the repository")
	NudgeEvery = duration("nudge-every", "15s",
		"a STALLED managed worker is nudged (its pack's nudge keys), then looked at again this long after")
	Nudges = count("nudges", "2",
		"after this many nudges a still frozen managed worker is escalated: a critical notification, its last lines kept in its history")
	RetireWait = duration("retire-wait", "10s",
		"`retire` gives a worker this long to quit after its interrupt keys before it kills the pane")
	HealthMin = duration("health-min", "5m",
		"the least time between two health prompts (`create --health-every`) to one worker")
	Policy = enum("policy", "off",
		"`on`: the daemon answers dialogs by the rules of `~/.config/paneherd/policy.toml` ([policy.md](policy.md)) when a pane enters NEEDS_CONFIRMATION; `dry-run`: it decides and records what it would have done, and presses nothing; `off`: a person answers every dialog",
		"off", "on", "dry-run")
	PolicyLimit = positive("policy-limit", "6",
		"at most this many dialogs of one pane answered by the policy within a minute; past it the pane's dialogs are a person's (a loop of approvals stops)")
	LLM = onOff("llm", "off",
		"`on`: a screen no pack understands (UNKNOWN), or one an agent's hook disputed past its freshness window, is read by a language model through an OpenAI-compatible API, asynchronously, and a dialog's or an error's notification gets its summary; the key is `OPENROUTER_API_KEY` for OpenRouter, `OPENAI_API_KEY` for OpenAI, `PANEHERD_LLM_KEY` for any other, from tmux's environment or paneherd's `.env`")
	LLMURL = text("llm-url", "https://openrouter.ai/api/v1",
		"the OpenAI-compatible API the model is asked through; a local server (llama.cpp, Ollama, vLLM) works by its URL, e.g. `http://127.0.0.1:11434/v1`, and needs no key")
	LLMModel = text("llm-model", "",
		"the model to ask, as the API names it (required when `@paneherd-llm` is on)")
	LLMPerMinute = positive("llm-per-minute", "6",
		"at most this many questions to the model a minute")
	LLMPerDay = positive("llm-per-day", "500",
		"at most this many questions to the model a day")
	LLMNotifyWait = duration("llm-notify-wait", "3s",
		"with `@paneherd-llm` on, a notification of a dialog or an error waits at most this long (10 s at most) for the model's summary of the screen and what it asks of you, and goes out with the pack's words when the model is slower; `0s`: notifications never ask the model")
	NotifyBackend = enum("notify-backend", "auto",
		"`auto`: desktop notification when a session bus is known (on macOS: osascript), else a message on the attached tmux clients; `desktop`, `tmux`, or `off`, which silences every backend (the ones below too)",
		"auto", "desktop", "tmux", "off")
	NotifyTerminal = enum("notify-terminal", "off",
		"also ask the terminals of the attached clients to notify, which reaches you over SSH: `osc9`, `osc777`, `osc99`, or `auto` (chosen per client from what tmux knows of its terminal); `off`",
		"auto", "osc9", "osc777", "osc99", "off")
	NotifyCommand = text("notify-command", "",
		"also run this program for each notification (`'PROGRAM ARGS'`, split as a shell splits words, never run by a shell), the event in `PANEHERD_*` environment variables and as JSON on its stdin; empty: none")
	NotifyCommandTimeout = duration("notify-command-timeout", "10s",
		"the notification command is ended after this long")
	NotifyWebhook = text("notify-webhook", "",
		"also post each notification to this http(s) URL; its secret parts are never shown; empty: none")
	NotifyWebhookFormat = enum("notify-webhook-format", "json",
		"what the webhook posts: `json` (paneherd's event object), `ntfy` (ntfy.sh or your own ntfy), `slack` (`{\"text\": …}`: Slack, Discord-compatible and Mattermost incoming webhooks)",
		"json", "ntfy", "slack")
	NotifySound = text("notify-sound", "off",
		"also play a sound for a dialog, an error and finished work: `on` (the platform's sound), a sound file, or `off`")
	NotifyNeedsConfirmation = onOff("notify-needs-confirmation", "on",
		"notify when a pane starts waiting for a confirmation (critical urgency)")
	NotifyFinished = onOff("notify-finished", "on",
		"notify when a pane goes from BUSY to READY: its work is done (says how long it ran)")
	NotifyError = onOff("notify-error", "on",
		"notify when a pane enters ERROR (critical urgency)")
	NotifyStalled = onOff("notify-stalled", "on",
		"notify when a pane enters STALLED")
	NotifyExited = onOff("notify-exited", "on",
		"notify when a pane's process dies (remain-on-exit), with its exit status when known, or an agent's CLI exits to its shell or shows its own exit (EXITED)")
	NotifySupervisor = onOff("notify-supervisor", "on",
		"notify when a managed worker crashed too often and is no longer restarted, stayed frozen after its nudges, or stopped getting its health prompts (critical urgency)")
	NotifyPolicy = onOff("notify-policy", "on",
		"notify of every dialog the policy answered (\"approved by rule NAME: …\", \"denied by rule NAME: …\"), at normal urgency, never as an alert")
	NotifyContext = percent("notify-context", "0",
		"notify once when a pane's context use passes this percent of its model's window (`85`), and again only after it fell below (a compaction, a new conversation); `0`: never")
	NotifyFinishedMin = duration("notify-finished-min", "10s",
		"notify of finished work only when the pane was BUSY at least this long")
	NotifyDedupe = duration("notify-dedupe", "90s",
		"the same pane and state notify at most once within this window; a dialog, once while it waits: one that appears anew (the pane left it for 2 s or more) notifies again")
	NotifyPaneLimit = count("notify-pane-limit", "3",
		"at most this many notifications per pane per minute; a dialog is never held back by it")
	NotifyBurst = duration("notify-burst", "1s",
		"changes of several panes this close together become one summary notification")
	NotifyBell = onOff("notify-bell", "off",
		"also ring the terminal bell of attached clients when notifying through tmux")
	Hosts = hostList("hosts",
		"other machines whose panes the bar shows too, separated by spaces: SSH destinations as `ssh` takes them (`devbox`, `me@build.example`, `devbox:2222`, a `Host` of `~/.ssh/config`); the daemon keeps one `ssh HOST paneherd follow --json` open per host, with your own ssh's config, keys and agent, never prompting: the host's master connection, which every other command paneherd runs there shares; it shows `[devbox/api: NEEDS_CONFIRMATION]`, `[devbox: unreachable]` ([fleet.md](fleet.md)); empty: none")
	SSH = sshOptions("ssh",
		"more options for every `ssh` paneherd runs to `@paneherd-hosts`, as a shell would split them (`-F ~/.ssh/fleet_config -o IdentityFile=~/.ssh/fleet`): options only, no host or command; paneherd's own (`BatchMode`, `ControlMaster`, `ControlPath`, `ControlPersist`, `-N`, `-f`, `-O`, …) cannot be changed, nor can flags that would empty a prompt's stdin or hide ssh's errors (`-n`, `-q`, `-v`, `-E`, `-y`); its keep-alives and `ConnectTimeout` can. A change takes effect at each host's next connection")
	MetricsListen = text("metrics-listen", "",
		"a loopback address (`127.0.0.1:9464`) where the daemon serves its metrics at `/metrics` for a Prometheus scraper; empty: not served (`paneherd metrics` prints them either way). Only loopback is served: the metrics name panes and workers, and the endpoint has no authentication; another address is refused and logged")
)
