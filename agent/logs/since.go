package logs

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a time for [Query.Since]: a date (2026-11-01, midnight
// local time), a date and time (2026-11-01T15:04, 2026-11-01 15:04 or
// RFC 3339), or a span back from now: a Go duration such as 24h or 90m,
// or a number of days such as 7d.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time; write a date (2026-11-01), a date and time (2026-11-01 15:04), or a span back from now (24h, 7d)", s)
}
