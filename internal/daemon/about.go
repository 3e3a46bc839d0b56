package daemon

import (
	"os"

	"github.com/paneherd/paneherd/internal/query"
)

// about answers OpAbout: what `paneherd doctor` reports of the daemon. The schema comes
// from the open database, since no other process may open the file to read it.
func (d *Daemon) about() (query.About, error) {
	schema, err := d.store.Schema()
	if err != nil {
		return query.About{}, err
	}
	return query.About{PID: os.Getpid(), Started: d.started, Observer: d.observing, Schema: schema,
		DB: d.cfg.Dir.DB(), Log: d.cfg.Dir.Log()}, nil
}
