package paths

import "os"

// Written is how a file looked when its writer last left it, so that one stat later
// tells whether someone else has removed, replaced or rewritten it. The daemon's
// published files (the snapshot, the workers registry) are rewritten only on a change:
// one broken by hand on a quiet server would stay broken until the next.
type Written struct{ info os.FileInfo }

// Note records the file at path as just written (none, if it cannot be read).
func (w *Written) Note(path string) { w.info, _ = os.Stat(path) }

// Changed reports whether the file at path is not what Note recorded: removed, replaced,
// rewritten in place, its mode changed, or never noted.
func (w Written) Changed(path string) bool {
	now, err := os.Stat(path)
	return err != nil || w.info == nil || !os.SameFile(now, w.info) || now.Size() != w.info.Size() ||
		!now.ModTime().Equal(w.info.ModTime()) || now.Mode() != w.info.Mode()
}
