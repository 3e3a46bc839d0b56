# The README's commands: ./install.sh builds; make test runs every test, unit and
# end-to-end (a real tmux on private sockets); make bench prints the figures.
GO ?= go

.PHONY: build test bench vet lab-hooks lab-packs lab-launch

build:
	./install.sh

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -count=1 -timeout 15m ./...

# Microbenchmarks (classify per screen, one watcher tick at 10 and 50 panes, one batched
# capture), then the harness: detection latency, CPU and memory of the daemon on a private
# tmux server, polling and control mode side by side (about 10 minutes).
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./packs/ ./internal/watcher/ ./internal/tmux/
	$(GO) run ./cmd/paneherd-bench -paneherd bin/paneherd

# The real Claude Code, Codex and Gemini CLIs (the agents lab, offline) with paneherd's
# hooks installed: checks the daemon hears their events. Needs the CLIs and AGENTS_LAB (the
# lab's folder); not in make test.
lab-hooks:
	./internal/lab/hooks.sh

# The real agent CLIs, offline against the lab's fake model server, watched by a private
# daemon: each situation's expected state against the live reading (minutes; needs the
# agents lab in AGENTS_LAB, see internal/lab/packs.sh). Not part of test. AGENTS="claude codex" picks others.
AGENTS ?= opencode qwen
lab-packs: build
	./internal/lab/packs.sh $(AGENTS)

# Each builtin pack's [launch] command and resume, and its interrupt and nudge keys, against
# the real CLIs offline (needs AGENTS_LAB, see internal/lab/launch.sh; a few minutes). Not
# part of test. LAUNCH_AGENTS="claude qwen" picks some.
LAUNCH_AGENTS ?= claude codex gemini opencode qwen
lab-launch: build
	./internal/lab/launch.sh $(LAUNCH_AGENTS)
