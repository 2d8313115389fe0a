package ghactions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/english"
)

// MinCronInterval is the shortest interval GitHub runs a schedule at.
const MinCronInterval = 5

// cronFields names the five fields and their ranges, in order.
var cronFields = []struct {
	name     string
	min, max int
}{{"minute", 0, 59}, {"hour", 0, 23}, {"day of month", 1, 31}, {"month", 1, 12}, {"day of week", 0, 6}}

// ValidateCron accepts a five-field POSIX cron expression (numbers, *,
// ranges a-b, steps */n and a-b/n, comma lists; no names) whose fields are
// in range and that never fires twice within MinCronInterval minutes.
func ValidateCron(expr string) error {
	f := strings.Fields(expr)
	if len(f) != len(cronFields) {
		return fmt.Errorf("cron %q: want five fields (minute hour day-of-month month day-of-week), got %d", expr, len(f))
	}
	sets := make([][]int, len(f))
	for i, field := range f {
		s, err := cronSet(field, cronFields[i].min, cronFields[i].max)
		if err != nil {
			return fmt.Errorf("cron %q: %s field %q: %v", expr, cronFields[i].name, field, err)
		}
		sets[i] = s
	}
	if gap := minGap(sets[0], sets[1]); gap < MinCronInterval {
		return fmt.Errorf("cron %q: fires %s apart; GitHub runs schedules at most every %d minutes, use e.g. \"*/%d * * * *\"",
			expr, english.Count(gap, "minute"), MinCronInterval, MinCronInterval)
	}
	return nil
}

// cronSet expands one field into its sorted values.
func cronSet(field string, lo, hi int) ([]int, error) {
	var out []int
	for _, item := range strings.Split(field, ",") {
		rng, stepText, hasStep := strings.Cut(item, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 || n > hi {
				return nil, fmt.Errorf("step %q: want 1-%d", stepText, hi)
			}
			step = n
		}
		a, b := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err error
			if a, err = cronNum(x, lo, hi); err != nil {
				return nil, err
			}
			if b, err = cronNum(y, lo, hi); err != nil {
				return nil, err
			}
			if a > b {
				return nil, fmt.Errorf("range %q runs backwards", rng)
			}
		default:
			if hasStep {
				return nil, fmt.Errorf("%q: a step needs * or a range before /", item)
			}
			n, err := cronNum(rng, lo, hi)
			if err != nil {
				return nil, err
			}
			a, b = n, n
		}
		for v := a; v <= b; v += step {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func cronNum(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%q: want a number %d-%d", s, lo, hi)
	}
	return n, nil
}

// minGap is the shortest distance in minutes between two firings within
// the minute set, counting the wrap from the last minute of an hour to
// the first of the next when two consecutive hours are both scheduled.
func minGap(minutes, hours []int) int {
	gap := 60
	for i := 1; i < len(minutes); i++ {
		gap = min(gap, minutes[i]-minutes[i-1])
	}
	if consecutiveHours(hours) {
		gap = min(gap, 60-minutes[len(minutes)-1]+minutes[0])
	}
	return gap
}

func consecutiveHours(hours []int) bool {
	for i, h := range hours {
		next := hours[(i+1)%len(hours)]
		if next == (h+1)%24 {
			return true
		}
	}
	return false
}
