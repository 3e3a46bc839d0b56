package store

import (
	"encoding/json"
	"fmt"

	"github.com/paneherd/paneherd/internal/wire"
	bolt "go.etcd.io/bbolt"
)

const workerEventLimit = 5000

// PutWorker creates or replaces a worker's record, by name.
func (s *Store) PutWorker(w wire.Worker) error {
	if w.Name == "" {
		return fmt.Errorf("store: put worker: no name")
	}
	err := s.db.Update(func(tx *bolt.Tx) error { return putJSON(tx.Bucket(bucketWorkers), []byte(w.Name), w) })
	if err != nil {
		return fmt.Errorf("store: put worker %s: %w", w.Name, err)
	}
	return nil
}

// DeleteWorker removes a worker's record; its events stay.
func (s *Store) DeleteWorker(name string) error {
	err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketWorkers).Delete([]byte(name)) })
	if err != nil {
		return fmt.Errorf("store: delete worker %s: %w", name, err)
	}
	return nil
}

// Workers returns every worker's record, by name.
func (s *Store) Workers() ([]wire.Worker, error) {
	out := []wire.Worker{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketWorkers).ForEach(func(k, v []byte) error {
			var w wire.Worker
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("decode worker %s: %w", k, err)
			}
			out = append(out, w)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: workers: %w", err)
	}
	return out, nil
}

// AddWorkerEvent records a runtime event, dropping the oldest beyond the limit.
func (s *Store) AddWorkerEvent(e wire.WorkerEvent) error { return workerEventLog.add(s, e) }

// WorkerEvents returns the newest limit events (all when limit <= 0) of the worker with
// that name ("": every worker), oldest first.
func (s *Store) WorkerEvents(name string, limit int) ([]wire.WorkerEvent, error) {
	return workerEventLog.newest(s, limit, func(e wire.WorkerEvent) bool { return name == "" || e.Worker == name })
}
