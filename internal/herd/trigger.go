package herd

import (
	"crypto/rand"
	"encoding/hex"
	"time"
)

// NewTriggerID names an action for the audit: time-ordered and unique.
func NewTriggerID() string {
	b := make([]byte, 3)
	rand.Read(b)
	return "t" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}
