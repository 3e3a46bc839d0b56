package main

import (
	"context"
	"errors"
	"fmt"
)

// errNoClient: a key binding's action run where no person's client is attached.
var errNoClient = errors.New("no tmux client is attached to show it on; press the menu key in tmux instead (@paneherd-key-menu, prefix a by default)")

// personsClient is the client a menu or a jump acts on: the one named, else the one a
// person used last (control-mode clients are programs). Never none: display-menu run
// outside a client with no -c waits for a client that never comes.
func personsClient(ctx context.Context, e *env, named string) (string, error) {
	if named != "" {
		return named, nil
	}
	clients, err := e.server.Clients(ctx)
	if err != nil {
		return "", fmt.Errorf("list tmux clients: %w", err)
	}
	best := -1
	for i, c := range clients {
		if !c.Control && (best < 0 || c.Activity.After(clients[best].Activity)) {
			best = i
		}
	}
	if best < 0 {
		return "", errNoClient
	}
	return clients[best].Name, nil
}
