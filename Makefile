# The README's commands: ./install.sh builds; make test runs every test, unit and
# end-to-end (a real tmux on private sockets); make bench prints the figures.
GO ?= go

.PHONY: build test test-deps bench vet lab-hooks lab-packs lab-launch lab-firstrun lab-trial lab-calibrate release-snapshot release

build:
	./install.sh

vet:
	@echo "== vet: $(GO) vet ./..."
	$(GO) vet ./...

# Every test, in two announced steps that each show progress: the unit tests print a line per
# package as it ends; the end-to-end tests (one package, minutes long) print a line per test,
# from -v without its === lines. pipefail (bash) keeps go test's exit status through sed.
E2E := ./internal/e2e/
test: SHELL := /bin/bash
test: .SHELLFLAGS := -o pipefail -c
test: test-deps vet
	@echo "== unit tests: $(GO) test ./... except $(E2E) (a line per package)"
	$(GO) test -count=1 -timeout 15m $$($(GO) list -e ./... | grep -v '/internal/e2e$$')
	@echo "== end-to-end tests: $(GO) test -v $(E2E) (the built binary on real tmux servers; a line per test, some minutes)"
	$(GO) test -count=1 -timeout 15m -v $(E2E) 2>&1 | sed -u '/^=== /d'

# What the tests run besides Go: say at once what is missing, not minutes into the run.
TEST_TOOLS := tmux dbus-daemon curl zsh fish
test-deps:
	@missing=""; for t in $(TEST_TOOLS); do command -v $$t >/dev/null 2>&1 || missing="$$missing $$t"; done; \
	if [ -n "$$missing" ]; then echo "make test needs:$$missing (Debian: apt-get install -y$$missing; .ci/run does it)" >&2; exit 1; fi

# Microbenchmarks (classify per screen, one watcher tick at 10 and 50 panes, one batched
# capture), then the harness: detection latency, agreement with the true state, CPU and
# memory of the daemon on a private tmux server, polling and control mode side by side with
# the floors, six scenarios (-scenario N runs one), written into docs/performance.md's bench
# block. PEER=https://github.com/luqmaan/tmux-ai-status (or a local clone) measures
# tmux-ai-status in the same runs. Then the fleet: a daemon
# following 10 hosts of 20 panes over ssh to a loopback sshd (needs openssh-server).
PEER ?=
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 2s ./packs/ ./internal/watcher/ ./internal/tmux/
	PANEHERD_FLEET_BENCH=1 $(GO) run ./cmd/paneherd-bench -paneherd bin/paneherd -floor -write docs/performance.md $(if $(PEER),-peer $(PEER))

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

# Each builtin pack's first start with the real CLI, offline, in a fresh HOME and an
# untrusted folder: create ends needs_confirmation with the prompt queued, approve and deny
# answer the trust dialog, retire leaves no process behind, history still finds the
# retired worker (needs AGENTS_LAB, see internal/lab/firstrun.sh; a few minutes). Not part
# of test. LAUNCH_AGENTS picks the agents here too.
lab-firstrun: build
	./internal/lab/firstrun.sh $(LAUNCH_AGENTS)

# The live trial (docs/performance.md): each real CLI through a scripted session of about 3
# minutes, watched by a private daemon; per agent the share of 100 ms samples shown right, the
# latency to show each state, and READY shown while busy (needs AGENTS_LAB, see
# internal/lab/trial.sh). Not part of test. TRIAL_AGENTS picks agents; TRIAL_HOOKS=1 (or
# both) installs paneherd's agent hooks first.
TRIAL_AGENTS ?= claude codex gemini opencode qwen
lab-trial: build
	./internal/lab/trial.sh $(TRIAL_AGENTS)

# What the real CLIs write to their terminal in each situation the bench plays (idle,
# thinking, streaming, running a tool, a dialog, an error), recorded at the bench's pane
# size into cmd/paneherd-bench/agents/ for its players, and docs/performance.md's table
# made again from the recordings (needs AGENTS_LAB, see internal/lab/calibrate.sh; about
# 4 minutes per agent). Not part of test. CALIBRATE_AGENTS picks agents.
CALIBRATE_AGENTS ?= claude codex gemini opencode qwen
lab-calibrate:
	./internal/lab/calibrate.sh $(CALIBRATE_AGENTS)

# Release binaries with GoReleaser, pinned (.goreleaser.yaml: linux and darwin, amd64 and
# arm64, tar.gz archives and checksums.txt, the names install.sh downloads). release-snapshot
# builds every archive into dist/ and publishes nothing; release publishes a tagged commit's
# to GitHub (GITHUB_TOKEN).
GORELEASER ?= $(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1

release-snapshot:
	$(GORELEASER) release --snapshot --clean

release:
	$(GORELEASER) release --clean
