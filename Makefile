# The README's commands: ./install.sh builds; make test runs every test, unit and
# end-to-end (a real tmux on private sockets); make bench prints the figures.
GO ?= go

.PHONY: build test bench vet

build:
	./install.sh

vet:
	$(GO) vet ./...

test: vet
	$(GO) test -count=1 -timeout 15m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./packs/ ./internal/watcher/ ./internal/tmux/
