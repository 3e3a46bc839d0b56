package live

import (
	"sync"
	"testing"
)

func TestValueStartsAtZero(t *testing.T) {
	var x Value[string]
	if v, n := x.LoadVersion(); v != "" || n != 0 {
		t.Errorf("zero Value = %q at version %d, want \"\" at 0", v, n)
	}
}

func TestStoreCountsVersions(t *testing.T) {
	var x Value[int]
	x.Store(7)
	x.Store(7) // the same value stored again is still news to whoever renders from it
	if v, n := x.LoadVersion(); v != 7 || n != 2 {
		t.Errorf("after two Stores of 7: %d at version %d, want 7 at 2", v, n)
	}
	if x.Load() != 7 {
		t.Errorf("Load = %d, want 7", x.Load())
	}
}

// TestConcurrentStoresAndLoads: Stores from several goroutines each count once, and a
// reader sees whole values and versions that never go back.
func TestConcurrentStoresAndLoads(t *testing.T) {
	type pair struct{ a, b int }
	var x Value[pair]
	var writers sync.WaitGroup
	for w := range 4 {
		writers.Go(func() {
			for i := range 20000 {
				x.Store(pair{w*20000 + i, w*20000 + i})
			}
		})
	}
	done := make(chan struct{})
	var reader sync.WaitGroup
	reader.Go(func() {
		var last uint64
		for {
			select {
			case <-done:
				return
			default:
			}
			v, n := x.LoadVersion()
			if v.a != v.b || n < last {
				t.Errorf("read %+v at version %d after version %d", v, n, last)
				return
			}
			last = n
		}
	})
	writers.Wait()
	close(done)
	reader.Wait()
	if _, n := x.LoadVersion(); n != 80000 {
		t.Errorf("version after 80000 Stores = %d, want 80000", n)
	}
}
