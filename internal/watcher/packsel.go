package watcher

import (
	"fmt"

	"github.com/paneherd/paneherd/internal/screen"
	"github.com/paneherd/paneherd/internal/tmux"
	"github.com/paneherd/paneherd/packs"
)

// FallbackPack reads panes no pack recognises: whatever runs there, it runs in a terminal.
const FallbackPack = packs.Shell

// choosePack picks the pane's pack: the @paneherd-pack option if set, else from the
// processes in the pane, else from screen signatures. The processes are read again only
// when the pane's process or foreground command changes; a pack guessed from the screen
// is guessed again as the screen changes.
func (w *Watcher) choosePack(p *pane, info tmux.Pane, sc screen.Screen) {
	key := packKey(info)
	if key == p.packKey {
		if p.guessed {
			w.guess(p, sc)
		}
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
	pk := w.Packs.ForProcesses(info.Command, procs)
	if pk != nil && (pk.Name != FallbackPack || pk.HasCommand(info.Command)) {
		p.pack = pk
		return
	}
	// Nothing but a shell, and the shell is not in front: something it started (ssh,
	// docker exec, a wrapper) runs a program the processes do not name. Its screen may.
	p.guessed = true
	w.guess(p, sc)
}

// guess picks the pack from the screen's signatures, or the fallback.
func (w *Watcher) guess(p *pane, sc screen.Screen) {
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
