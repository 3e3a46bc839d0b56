package store

import (
	"testing"
	"time"

	"github.com/paneherd/paneherd/internal/wire"
)

func TestWorkersKeepTheirEventsWhenRemoved(t *testing.T) {
	s := openTemp(t)
	at := time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC)
	w := wire.Worker{ID: "w1", Name: "api", Workspace: "/src/api", PaneID: "%3", Status: "starting", Restart: "on-failure", Created: at}
	if err := s.PutWorker(w); err != nil {
		t.Fatal(err)
	}
	w.Status, w.Restarts = "ready", 1
	if err := s.PutWorker(w); err != nil {
		t.Fatal(err)
	}
	for i, kind := range []string{"registered", "restarted", "retired"} {
		if err := s.AddWorkerEvent(wire.WorkerEvent{At: at.Add(time.Duration(i) * time.Second), Worker: "api", ID: "w1", Kind: kind}); err != nil {
			t.Fatal(err)
		}
	}
	s.AddWorkerEvent(wire.WorkerEvent{At: at, Worker: "web", ID: "w2", Kind: "registered"})
	got, err := s.Workers()
	if err != nil || len(got) != 1 || got[0].Status != "ready" || got[0].Restarts != 1 {
		t.Fatalf("workers = %+v, %v; want the one record, replaced", got, err)
	}
	if err := s.DeleteWorker("api"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Workers(); len(got) != 0 {
		t.Fatalf("workers after delete = %+v", got)
	}
	events, err := s.WorkerEvents("api", 2)
	if err != nil || len(events) != 2 || events[0].Kind != "restarted" || events[1].Kind != "retired" {
		t.Fatalf("events = %+v, %v; want the newest two of api, oldest first", events, err)
	}
	if err := s.PutWorker(wire.Worker{}); err == nil {
		t.Fatal("a worker without a name was stored")
	}
}
