package status

import (
	"fmt"
	"slices"
	"strconv"
	"time"
)

func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func intOrNone(n *int) string {
	if n == nil {
		return none
	}
	return strconv.Itoa(*n)
}

func seconds(s float64) string {
	if s <= 0 {
		return none
	}
	return time.Duration(s * float64(time.Second)).Round(time.Millisecond).String()
}

// age is a duration the way kubectl shows it: 45s, 3m12s, 2h5m, 3d4h.
func age(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%s%ds", neg, int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%s%dm%ds", neg, int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%s%dh%dm", neg, int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%s%dd%dh", neg, int(d.Hours())/24, int(d.Hours())%24)
}

// ago is t as "<age> ago" at now.
func ago(t, now time.Time) string {
	if t.IsZero() {
		return none
	}
	return age(now.Sub(t)) + " ago"
}

// stamp is t as RFC 3339 with its age, or none.
func stamp(t *time.Time, now time.Time) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339) + " (" + ago(*t, now) + ")"
}

func budget(r *RateLimit) string {
	if r == nil {
		return "not reported"
	}
	if r.Limit > 0 {
		return fmt.Sprintf("%d of %d", r.Remaining, r.Limit)
	}
	return strconv.Itoa(r.Remaining)
}

func sortStrings(xs []string) { slices.Sort(xs) }
