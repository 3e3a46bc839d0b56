package watcher

import (
	"fmt"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/packs"
)

// FallbackPack reads panes no pack recognises: whatever runs there, it runs in a terminal.
const FallbackPack = "shell"

// choosePack picks the pane's pack: the @paneherd-pack option if set, else from the
// processes in the pane, else from screen signatures. Detection runs again only when the
// pane's process or foreground command changes.
func (w *Watcher) choosePack(p *pane, info tmux.Pane, sc screen.Screen) {
	key := packKey(info)
	if key == p.packKey && !p.guessed {
		return
	}
	p.packKey, p.guessed = key, false
	if info.OptPack != "" {
		pk, err := w.Packs.Get(info.OptPack)
		if err == nil {
			p.pack = pk
			return
		}
		w.Log.Warn().Str("pane", info.ID).Err(err).Msg("@paneherd-pack names no pack; detecting instead")
	}
	var procs []packs.Process
	if w.Processes != nil {
		procs = w.Processes(info.PID)
	}
	if pk := w.Packs.ForProcesses(info.Command, procs); pk != nil {
		p.pack = pk
		return
	}
	// The processes told nothing (a wrapper, ssh): read the screen, and keep reading it
	// on later frames, since a CLI's signature may appear only once it has drawn.
	p.guessed = true
	if pk := w.Packs.ForScreen(sc); pk != nil {
		p.pack = pk
		return
	}
	p.pack, _ = w.Packs.Get(FallbackPack)
}

// packKey is what a pane's pack is chosen from.
func packKey(info tmux.Pane) string {
	return fmt.Sprintf("%s|%d|%s", info.OptPack, info.PID, info.Command)
}
