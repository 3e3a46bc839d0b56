package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/paneherd/paneherd/internal/herd"
	"github.com/paneherd/paneherd/internal/options"
	"github.com/paneherd/paneherd/internal/paths"
	"github.com/paneherd/paneherd/internal/wire"
)

// daemonState is what the daemon's files and its answer say, for the daemon, log and
// database lines.
type daemonState struct {
	pid       int    // 0: no daemon holds the lock
	version   string // this paneherd's
	untrusted error  // the runtime directory is not the user's own (paths.Dir.Trusted)
	about     wire.About
	aboutErr  error
	stopped   bool // the stopped mark: ended on purpose (paneherd stop, a signal, the server's end)
	ranBefore bool // a lock file: a daemon ran for this server before
	serverUp  bool
	observer  string // @paneherd-observer
	log, db   file
	now       time.Time
}

// file is a path and what stat said of it.
type file struct {
	path string
	size int64
	err  error
}

func statFile(path string) file {
	fi, err := os.Stat(path)
	if err != nil {
		return file{path: path, err: err}
	}
	return file{path: path, size: fi.Size()}
}

// checkDaemon looks at the lock (who holds it), the stopped mark, and asks a running
// daemon about itself: where it keeps its log and database is its own environment's
// choice, and the database's schema only it may read (only the daemon opens the file).
//
// It returns the daemon's answer too (nil: no daemon answered), for the notify line.
func (d Doctor) checkDaemon(ctx context.Context, values options.Values, serverUp bool) ([]Check, *wire.About) {
	hd, err := herd.Of(d.Server, d.Getenv)
	if err != nil {
		return []Check{fail("daemon", "cannot tell where its files are: "+err.Error(), "set HOME")}, nil
	}
	s := daemonState{pid: hd.PID(), version: d.Version, untrusted: hd.Dir.Trusted(), stopped: exists(hd.Dir.Stopped()),
		ranBefore: exists(hd.Dir.Lock()), serverUp: serverUp, observer: options.Observer.In(values), now: time.Now()}
	logPath, dbPath := hd.Dir.Log(), hd.Dir.DB()
	if s.pid != 0 {
		ctx, cancel := context.WithTimeout(ctx, limit)
		s.about, s.aboutErr = hd.About(ctx)
		cancel()
		if s.aboutErr == nil {
			logPath, dbPath = s.about.Log, s.about.DB
		}
	}
	s.log, s.db = statFile(logPath), statFile(dbPath)
	var about *wire.About
	if s.pid != 0 && s.aboutErr == nil {
		about = &s.about
	}
	return []Check{s.daemonCheck(), s.logCheck(), s.databaseCheck()}, about
}

func (s daemonState) daemonCheck() Check {
	var untrusted *paths.Untrusted
	switch {
	case errors.As(s.untrusted, &untrusted):
		return fail("daemon", "its directory "+untrusted.Path+" "+untrusted.Problem, untrusted.Fix)
	case s.untrusted != nil:
		return fail("daemon", s.untrusted.Error(), "check the runtime directory's owner and permissions")
	case s.pid == 0 && !s.serverUp:
		return fail("daemon", "not running (no tmux server)", "start tmux, then 'paneherd start' (or let the plugin start it)")
	case s.pid == 0 && s.stopped:
		return fail("daemon", "not running: it was stopped ('paneherd stop', a signal, or its tmux server ended), so the status bar leaves it off",
			"run 'paneherd start'")
	case s.pid == 0 && s.ranBefore:
		return fail("daemon", "not running: the last one ended without being stopped (a crash? see "+s.log.path+")",
			"run 'paneherd start' (with the plugin applied, the status bar revives it too)")
	case s.pid == 0:
		return fail("daemon", "not running", "run 'paneherd start'")
	case errors.Is(s.aboutErr, wire.ErrUnknownOp):
		return warn("daemon", fmt.Sprintf("running (pid %d), a paneherd of another version, which cannot say more", s.pid),
			"run 'paneherd restart' to run this one")
	case s.aboutErr != nil:
		return fail("daemon", fmt.Sprintf("running (pid %d) but not answering: %v", s.pid, s.aboutErr),
			"see its log "+s.log.path+", then 'paneherd restart'")
	}
	how := "through control mode"
	if s.about.Observer != "control" {
		how = "by polling"
	}
	found := fmt.Sprintf("running (pid %d, paneherd %s) since %s (%s), looking %s", s.pid, orUnknown(s.about.Version),
		s.about.Started.Format("2006-01-02 15:04:05"), s.now.Sub(s.about.Started).Round(time.Second), how)
	if s.about.Version != s.version {
		return warn("daemon", found, "this is paneherd "+s.version+": run 'paneherd restart' to run this one")
	}
	if s.observer == "control" && s.about.Observer != "control" {
		return warn("daemon", found, "control mode could not attach (see its log "+s.log.path+"); 'paneherd restart' tries again")
	}
	return ok("daemon", found)
}

func (s daemonState) logCheck() Check {
	switch {
	case errors.Is(s.log.err, fs.ErrNotExist):
		return ok("log", s.log.path+" (none yet)")
	case s.log.err != nil:
		return warn("log", s.log.err.Error(), "check the state directory's owner and permissions")
	}
	return ok("log", s.log.path+" ("+humanSize(s.log.size)+")")
}

func (s daemonState) databaseCheck() Check {
	schema := "schema unknown (no daemon runs to ask)"
	switch {
	case s.pid != 0 && s.aboutErr == nil:
		schema = fmt.Sprintf("schema %d", s.about.Schema)
	case s.pid != 0:
		schema = "schema unknown (the daemon did not say)"
	}
	if trouble := s.about.Store; s.pid != 0 && s.aboutErr == nil && trouble != nil {
		return s.storeTroubleCheck(*trouble)
	}
	switch {
	case errors.Is(s.db.err, fs.ErrNotExist):
		return ok("database", s.db.path+": none yet (the daemon creates it), "+schema)
	case s.db.err != nil:
		return warn("database", s.db.err.Error(), "check the state directory's owner and permissions")
	}
	found := fmt.Sprintf("%s, %s, %s", s.db.path, humanSize(s.db.size), schema)
	if s.about.Damaged > 0 {
		records := "records"
		if s.about.Damaged == 1 {
			records = "record"
		}
		return warn("database", fmt.Sprintf("%s; %d damaged %s, which history skips", found, s.about.Damaged, records),
			"trimming drops damaged history in time (not a damaged queued prompt); to be rid of them now, 'paneherd stop', move the file aside, 'paneherd start' (a fresh database: no history)")
	}
	return ok("database", found)
}

// orUnknown is v, or "of an unknown version" for a daemon too old to say.
func orUnknown(v string) string {
	if v == "" {
		return "of an unknown version"
	}
	return v
}

// storeTroubleCheck is the database refusing the daemon's writes: states are published,
// history waits in its memory, each pane's newest only (opened read-only: none waits, as
// only a restart can write).
func (s daemonState) storeTroubleCheck(t wire.StoreTrouble) Check {
	if t.ReadOnly != "" {
		return fail("database", "store: write failed: "+s.db.path+" "+t.ReadOnly+"; states are published, their changes neither stored nor kept",
			"make it writable (chattr -i or chmod u+w), then run 'paneherd restart'")
	}
	kept := fmt.Sprintf("state changes kept in the daemon's memory meanwhile: %d", t.Waiting)
	if t.Dropped > 0 {
		kept += fmt.Sprintf("; dropped: %d, the oldest beyond a pane's history limit", t.Dropped)
	}
	return fail("database", fmt.Sprintf("store: write failed since %s (%s; %s): %s",
		t.Since.Format("2006-01-02 15:04:05"), s.now.Sub(t.Since).Round(time.Second), kept, t.Error),
		"free space on the disk that holds "+s.db.path+", or make it writable (chattr -i or chmod u+w): what waits is written within a second once it can be")
}

// humanSize says a file's size as a person reads it: 512 B, 1.5 KiB, 12.0 MiB.
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
