package llm

import (
	"container/list"
	"slices"
)

// cache keeps the latest answers by the hash of the masked screen they read, dropping the
// least recently used beyond its size. Its owner holds the lock.
type cache struct {
	size  int
	order *list.List // of entry, most recent first
	byKey map[[32]byte]*list.Element
}

type entry struct {
	key    [32]byte
	answer Answer
}

func newCache(size int) *cache {
	return &cache{size: size, order: list.New(), byKey: map[[32]byte]*list.Element{}}
}

func (c *cache) get(key [32]byte) (Answer, bool) {
	e, ok := c.byKey[key]
	if !ok {
		return Answer{}, false
	}
	c.order.MoveToFront(e)
	a := e.Value.(entry).answer
	a.ActionsNeeded = slices.Clone(a.ActionsNeeded) // the caller's to change
	return a, true
}

func (c *cache) put(key [32]byte, a Answer) {
	a.ActionsNeeded = slices.Clone(a.ActionsNeeded) // the caller keeps its own
	if e, ok := c.byKey[key]; ok {
		e.Value = entry{key, a}
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(entry{key, a})
	for c.order.Len() > c.size {
		last := c.order.Back()
		delete(c.byKey, last.Value.(entry).key)
		c.order.Remove(last)
	}
}
