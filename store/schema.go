package store

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Layout of schema 2:
//
//	meta              app = "paneherd", schema = 2 (JSON values)
//	panes             pane id ("%3") -> Pane as JSON
//	history/<pane id> big-endian NextSequence -> Transition as JSON
//	notifications     big-endian NextSequence -> Notification as JSON (since schema 2)
//	triggers          big-endian NextSequence -> Trigger as JSON (since schema 3)
//	queue             trigger id -> Queued as JSON (since schema 3)
//	workers           worker name -> Worker as JSON (since schema 4)
//	worker_events     big-endian NextSequence -> WorkerEvent as JSON (since schema 4)
const (
	appName       = "paneherd"
	schemaVersion = 4
)

var (
	bucketMeta    = []byte("meta")
	bucketPanes   = []byte("panes")
	bucketHistory = []byte("history")
	bucketNotes   = []byte("notifications")
	bucketTrig    = []byte("triggers")
	bucketQueue   = []byte("queue")
	bucketWorkers = []byte("workers")
	bucketEvents  = []byte("worker_events")
	keyApp        = []byte("app")
	keySchema     = []byte("schema")
)

// migrations[v-1] upgrades a database from schema v to v+1. When the
// layout changes, bump schemaVersion and append the step here.
var migrations = []func(tx *bolt.Tx) error{
	addBuckets(bucketNotes),                 // 1 -> 2: notification history
	addBuckets(bucketTrig, bucketQueue),     // 2 -> 3: trigger audit, queued prompts
	addBuckets(bucketWorkers, bucketEvents), // 3 -> 4: the supervisor's registry and its events
}

func addBuckets(names ...[]byte) func(tx *bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		for _, name := range names {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return nil
	}
}

// ensureSchema creates the layout in a new database, migrates an older
// one, and rejects anything that is not a paneherd database we understand.
func ensureSchema(tx *bolt.Tx) error {
	version, err := schemaOf(tx)
	if err != nil {
		return err
	}
	switch version {
	case 0:
		return create(tx)
	case schemaVersion:
		return requireBuckets(tx)
	}
	return migrate(tx, version)
}

// Schema is the database's schema version, as its meta bucket records it: what the
// daemon reports to `paneherd doctor`, which must not open the file itself.
func (s *Store) Schema() (int, error) {
	var version int
	err := s.db.View(func(tx *bolt.Tx) (err error) {
		version, err = schemaOf(tx)
		return err
	})
	return version, err
}

// schemaOf returns the schema version of the database, or 0 if it holds
// nothing at all (just created by bbolt).
func schemaOf(tx *bolt.Tx) (int, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if isEmpty(tx) {
			return 0, nil
		}
		return 0, fmt.Errorf("%w: no %s bucket: not a paneherd database", errCorrupt, bucketMeta)
	}
	var app string
	if err := json.Unmarshal(meta.Get(keyApp), &app); err != nil || app != appName {
		return 0, fmt.Errorf("%w: meta/app is %q, not %q", errCorrupt, meta.Get(keyApp), appName)
	}
	var version int
	if err := json.Unmarshal(meta.Get(keySchema), &version); err != nil || version < 1 {
		return 0, fmt.Errorf("%w: bad meta/schema %q", errCorrupt, meta.Get(keySchema))
	}
	if version > schemaVersion {
		return 0, fmt.Errorf("%w: schema %d is newer than this paneherd knows (%d)",
			errCorrupt, version, schemaVersion)
	}
	return version, nil
}

func isEmpty(tx *bolt.Tx) bool {
	k, _ := tx.Cursor().First()
	return k == nil
}

func create(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketMeta, bucketPanes, bucketHistory, bucketNotes, bucketTrig, bucketQueue, bucketWorkers, bucketEvents} {
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	if err := putJSON(tx.Bucket(bucketMeta), keyApp, appName); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bucketMeta), keySchema, schemaVersion)
}

func migrate(tx *bolt.Tx, from int) error {
	for v := from; v < schemaVersion; v++ {
		if err := migrations[v-1](tx); err != nil {
			return fmt.Errorf("migrate schema %d to %d: %w", v, v+1, err)
		}
	}
	if err := putJSON(tx.Bucket(bucketMeta), keySchema, schemaVersion); err != nil {
		return err
	}
	return requireBuckets(tx)
}

// requireBuckets makes sure the rest of the package can take the top-level
// buckets for granted.
func requireBuckets(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketPanes, bucketHistory, bucketNotes, bucketTrig, bucketQueue, bucketWorkers, bucketEvents} {
		if tx.Bucket(name) == nil {
			return fmt.Errorf("%w: %s bucket missing", errCorrupt, name)
		}
	}
	return nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	if err := b.Put(key, data); err != nil {
		return fmt.Errorf("put %s: %w", key, err)
	}
	return nil
}
