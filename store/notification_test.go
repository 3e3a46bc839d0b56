package store

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

func TestNotificationsKeptBoundedAndFiltered(t *testing.T) {
	s := openTemp(t)
	t0 := time.Unix(1_700_000_000, 0).UTC()
	for i := 0; i < notificationLimit+5; i++ {
		pane := "%1"
		if i%2 == 1 {
			pane = "%2"
		}
		if err := s.AddNotification(wire.Notification{At: t0.Add(time.Duration(i) * time.Second), PaneID: pane, Event: "finished", Backend: "tmux"}); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Notifications("", 0)
	if err != nil || len(all) != notificationLimit {
		t.Fatalf("kept %d, %v; want %d", len(all), err, notificationLimit)
	}
	if !all[0].At.Equal(t0.Add(5*time.Second)) || !all[len(all)-1].At.After(all[0].At) {
		t.Errorf("not oldest first, or the oldest were not dropped: first %v", all[0].At)
	}
	last, _ := s.Notifications("%2", 3)
	if len(last) != 3 || last[2].PaneID != "%2" || !last[2].At.Equal(t0.Add(time.Duration(notificationLimit+3)*time.Second)) {
		t.Errorf("newest 3 of %%2 = %+v", last)
	}
}

func TestSchema1IsMigrated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error {
		meta, _ := tx.CreateBucket(bucketMeta)
		meta.Put(keyApp, []byte(`"paneherd"`))
		meta.Put(keySchema, []byte(`1`))
		panes, _ := tx.CreateBucket(bucketPanes)
		rec, _ := json.Marshal(wire.Pane{ID: "%4", State: "READY"})
		panes.Put([]byte("%4"), rec)
		_, err := tx.CreateBucket(bucketHistory)
		return err
	})
	db.Close()

	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Recovered() != "" {
		t.Fatalf("a schema 1 database was moved aside: %s", s.Recovered())
	}
	panes, _ := s.Panes()
	if len(panes) != 1 || panes[0].ID != "%4" {
		t.Errorf("panes after migration = %+v", panes)
	}
	if err := s.AddNotification(wire.Notification{PaneID: "%4"}); err != nil {
		t.Errorf("notifications after migration: %v", err)
	}
}
