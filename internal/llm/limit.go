package llm

import (
	"fmt"
	"time"

	"github.com/paneherd/paneherd/internal/ratelimit"
)

// limits holds the per-minute window and the day's count. Its owner holds the lock.
type limits struct {
	minute ratelimit.Window
	day    time.Time // local midnight starting the day counted
	used   int       // requests on that day
}

// take counts one request at now, or returns ErrLimited and counts nothing. The budget
// resets at local midnight.
func (l *limits) take(now time.Time, perMinute, perDay int) error {
	if today := midnight(now); !today.Equal(l.day) {
		l.day, l.used = today, 0
	}
	if l.used >= perDay {
		return fmt.Errorf("%w: %d requests today, the daily budget", ErrLimited, l.used)
	}
	if !l.minute.Allow("", now, perMinute, time.Minute) {
		return fmt.Errorf("%w: %d requests in the last minute", ErrLimited, perMinute)
	}
	l.used++
	return nil
}

// midnight is the start of now's day in the local time zone.
func midnight(now time.Time) time.Time {
	y, m, d := now.Local().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.Local)
}
