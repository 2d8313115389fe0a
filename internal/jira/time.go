package jira

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// TimeLayout is the timestamp layout of Jira REST responses, e.g.
// 2024-05-02T10:11:12.345+0000.
const TimeLayout = "2006-01-02T15:04:05.000-0700"

// acceptedLayouts are tried in order when decoding a Time.
var acceptedLayouts = []string{TimeLayout, time.RFC3339Nano, "2006-01-02T15:04:05-0700", "2006-01-02T15:04:05.000Z07:00"}

// ParseTime parses a Jira timestamp in Jira's own layout or RFC 3339.
func ParseTime(s string) (time.Time, error) {
	for _, l := range acceptedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want Jira (2006-01-02T15:04:05.000-0700) or RFC 3339 format", s)
}

// MarshalJSON writes Jira's layout; the zero Time is null.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + t.Format(TimeLayout) + `"`), nil
}

// UnmarshalJSON accepts Jira's layout, RFC 3339, null and "" (both zero).
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: want a string, got %.40s", b)
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := ParseTime(s)
	if err != nil {
		return err
	}
	t.Time = v
	return nil
}
