# The README's commands: ./install.sh builds; make test runs every test, unit and
# end-to-end (a real tmux on private sockets); make bench prints the figures.
GO ?= go

.PHONY: build test bench vet lab-hooks lab-packs

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
