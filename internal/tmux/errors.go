package tmux

import "errors"

var (
	// ErrNoServer is returned by Run (and everything built on it) when no
	// tmux server listens on the selected socket: the socket file is missing
	// ("error connecting to … (No such file or directory)") or nothing
	// accepts on it ("no server running on …"), or the server quit while
	// the command ran ("server exited unexpectedly").
	ErrNoServer = errors.New("no tmux server running")

	// ErrNoPane is returned by Run when a command names a pane that does
	// not exist (any more): tmux says "can't find pane: %N".
	ErrNoPane = errors.New("no such pane")

	// ErrNoSessions is returned by Run when a server that outlives its last session
	// (exit-empty off) is asked for panes: tmux 3.3a's list-panes -a then says "no
	// current target" instead of listing nothing.
	ErrNoSessions = errors.New("no sessions")

	// ErrSanitised is returned when tmux's output holds '_' where paneherd's \x1f
	// field separators belong: tmux 3.3a prints so to a client it takes to lack UTF-8,
	// which Args's -u should have prevented (see Sanitised).
	ErrSanitised = errors.New("tmux printed '_' for paneherd's field separators, as it does for a client without UTF-8: set a UTF-8 locale (LANG=C.UTF-8)")

	// ErrVersion is returned by Version when `tmux -V` prints something
	// that does not start with a major.minor number.
	ErrVersion = errors.New("unrecognised tmux version")
)
