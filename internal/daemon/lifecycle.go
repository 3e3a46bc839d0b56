package daemon

import (
	"context"
	"sync"

	"github.com/paneherd/paneherd/hooks"
	"github.com/paneherd/paneherd/internal/query"
)

// run starts the daemon's goroutines, runs the watcher until ctx ends or the server
// goes, then shuts down in order. Every goroutine started here is awaited before the
// store closes, so nothing writes to it after.
func (d *Daemon) run(ctx context.Context) error {
	if err := d.w.Restore(); err != nil {
		d.observer.Close()
		d.closeMetrics()
		d.closeStore()
		return err
	}
	// work ends the goroutines that serve the watcher: not ctx, so that they outlive
	// the watcher when the tmux server goes, and stop in the order shutdown says.
	work, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	var background sync.WaitGroup
	background.Go(func() { d.notifier.Run(work) })
	background.Go(func() { d.queue.run(work) })
	background.Go(func() { d.readScreens(work) })
	background.Go(func() { d.contexts.Run(work) })
	background.Go(func() { d.fleet.Run(work) })
	background.Go(func() { d.showFleet(work) })
	if err := d.sup.Load(); err != nil {
		d.log.Error().Err(err).Msg("workers registry not loaded; managed workers are not supervised")
	} else {
		background.Go(func() { d.sup.Run(work) })
	}
	listener, questions, err := d.serve(&background)
	if err != nil {
		stopWork()
		background.Wait()
		d.observer.Close()
		d.closeMetrics()
		d.closeStore()
		return err
	}
	d.log.Info().Str("server", d.server.SocketPath()).Msg("watching")
	err = d.w.Run(ctx, d.observer)
	d.shutdown(listener, questions, stopWork, &background)
	return err
}

// serve listens for hook events and for questions.
func (d *Daemon) serve(background *sync.WaitGroup) (*hooks.Listener, *query.Server, error) {
	l, err := hooks.Listen(d.cfg.Dir.Socket())
	if err != nil {
		return nil, nil, err
	}
	events := l.Events(context.Background()) // closed when l closes
	background.Go(func() { d.events(events) })
	questions, err := query.Serve(d.cfg.Dir.Query(), d.handlers())
	if err != nil {
		l.Close()
		return nil, nil, err
	}
	return l, questions, nil
}

// shutdown takes the daemon down in an order where nothing is left writing:
//  1. the observer stops (its control-mode clients detach): no more frames;
//  2. hook events stop coming; the queue, the supervisor, the fleet's streams, the
//     readers of the agents' files and the notifier stop; the delivery engine stops (a send that typed its prompt submits it
//     and ends at once, DELIVERED or INTERRUPTED), then questions stop coming and those under way are
//     cancelled and end (each audited);
//  3. the metrics listener closes (after the events, whose reload could open it again);
//  4. the watcher commits what a failed write left pending: the last state;
//  5. the pushed status line becomes the off marker, so the bar says paneherd is off;
//  6. the store closes.
func (d *Daemon) shutdown(l *hooks.Listener, questions *query.Server, stopWork context.CancelFunc, background *sync.WaitGroup) {
	d.observer.Close()
	d.log.Debug().Msg("shutdown: observer stopped")
	l.Close()
	// The queue's sends see their ctx end before the engine refuses to type: a prompt
	// refused for that stays queued as it was.
	stopWork()
	d.stopRules()
	d.engine.Stop()
	questions.Close()
	background.Wait()
	d.log.Debug().Msg("shutdown: sends, queue and notifications settled")
	d.closeMetrics()
	if err := d.w.Close(); err != nil {
		d.log.Error().Err(err).Msg("shutdown: last state not committed")
	} else {
		d.log.Debug().Msg("shutdown: last state committed")
	}
	d.showOff()
	d.log.Debug().Msg("shutdown: status line says off")
	d.closeStore()
	d.log.Info().Msg("stopped")
}

func (d *Daemon) closeStore() {
	if err := d.store.Close(); err != nil {
		d.log.Error().Err(err).Msg("close store")
		return
	}
	d.log.Debug().Msg("shutdown: store closed")
}

// events wakes the observer on every hook event, re-reads the options on reload, and
// applies an agent hook's event at once (agent.go).
func (d *Daemon) events(events <-chan hooks.Event) {
	for ev := range events {
		if a, ok := hooks.AgentEventOf(ev); ok {
			d.agent(a)
			d.observer.Wake()
			continue
		}
		if a, ok := hooks.AgentFileOf(ev); ok {
			d.followFile(a)
			continue
		}
		d.log.Debug().Str("event", ev.Name).Strs("args", ev.Args).Msg("hook")
		if ev.Name == hooks.Reload {
			d.reload()
		}
		d.observer.Wake()
		if ev.Name == "pane-died" && len(ev.Args) > 0 {
			d.sup.Died(ev.Args[0])
		}
		d.sup.Poke()
	}
}
