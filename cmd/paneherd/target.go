package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/paneherd/paneherd/store"
)

// resolveTarget finds a pane by what a person calls it: a pane id (%3), a worker name as
// the status line shows it, or session:window.pane (window by index or name).
func resolveTarget(panes []store.Pane, target string) (store.Pane, error) {
	var found []store.Pane
	for _, p := range panes {
		if matchesTarget(p, target) {
			found = append(found, p)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return store.Pane{}, fmt.Errorf("no pane %q: give a pane id (%%3), a worker name or session:window.pane", target)
	}
	var ids []string
	for _, p := range found {
		ids = append(ids, p.ID)
	}
	return store.Pane{}, fmt.Errorf("%q names several panes (%s): give a pane id", target, strings.Join(ids, ", "))
}

func matchesTarget(p store.Pane, target string) bool {
	if target == p.ID || target == p.Name {
		return true
	}
	session, rest, ok := strings.Cut(target, ":")
	if !ok || session != p.Session {
		return false
	}
	window, pane, hasPane := strings.Cut(rest, ".")
	if hasPane && pane != strconv.Itoa(p.PaneIndex) {
		return false
	}
	return window == strconv.Itoa(p.WindowIndex) || window == p.Window
}
