package logs

import (
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 15, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"24h", now.Add(-24 * time.Hour), true},
		{"90m", now.Add(-90 * time.Minute), true},
		{"7d", time.Date(2026, 11, 8, 12, 0, 0, 0, time.UTC), true},
		{"2026-11-01", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), true},
		{"2026-11-01 15:04", time.Date(2026, 11, 1, 15, 4, 0, 0, time.UTC), true},
		{"2026-11-01T15:04:05+02:00", time.Date(2026, 11, 1, 13, 4, 5, 0, time.UTC), true},
		{"yesterday", time.Time{}, false},
		{"-3h", time.Time{}, false},
		{"", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSince(tt.in, now)
			if (err == nil) != tt.ok || !got.Equal(tt.want) {
				t.Fatalf("ParseSince(%q) = %v, %v; want %v (ok %v)", tt.in, got, err, tt.want, tt.ok)
			}
		})
	}
}
