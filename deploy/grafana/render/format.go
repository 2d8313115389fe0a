package render

import (
	"math"
	"strconv"
	"strings"
)

// format writes v in a Grafana unit: s (durations), percentunit, ops and
// reqps (per second), short (plain, with k and M).
func format(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	switch unit {
	case "s":
		return duration(v)
	case "percentunit":
		return trim(v*100, 1) + "%"
	case "ops", "reqps":
		return short(v) + "/s"
	}
	return short(v)
}

func duration(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0s"
	case a < 1:
		return trim(v*1000, 0) + "ms"
	case a < 120:
		return trim(v, 1) + "s"
	case a < 7200:
		return trim(v/60, 1) + "m"
	}
	return trim(v/3600, 1) + "h"
}

func short(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6:
		return trim(v/1e6, 1) + "M"
	case a >= 1e3:
		return trim(v/1e3, 1) + "k"
	case a >= 10 || a == 0:
		return trim(v, 0)
	case a >= 1:
		return trim(v, 1)
	}
	return trim(v, 2)
}

func trim(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// niceMax rounds v up to 1, 2, 2.5 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
