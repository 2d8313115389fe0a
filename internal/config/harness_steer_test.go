package config

import (
	"testing"
	"time"
)

func TestParseHarnessSteer(t *testing.T) {
	cases := []struct {
		name, src string
		want      HarnessSteer
	}{
		{"off by default", "role: r\n", HarnessSteer{Max: 2, MinTimeLeft: 5 * time.Minute}},
		{"enabled", "role: r\nsteer: {enabled: true}\n", HarnessSteer{Enabled: true, Max: 2, MinTimeLeft: 5 * time.Minute}},
		{"all set", "role: r\nsteer:\n  enabled: true\n  max: 5\n  min_time_left: 0s\n  stdin: true\n",
			HarnessSteer{Enabled: true, Max: 5, MinTimeLeft: 0, Stdin: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, probs := ParseHarness("h.yaml", "agent", []byte(tc.src))
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			if h.Steer != tc.want {
				t.Errorf("got %+v, want %+v", h.Steer, tc.want)
			}
		})
	}
}

func TestHarnessSteerProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []want
	}{
		{"not a mapping", "role: r\nsteer: true\n", []want{{"h.yaml", 2, 8, "steer: want a mapping, got a boolean"}}},
		{"bad enabled", "role: r\nsteer:\n  enabled: yes please\n", []want{{"h.yaml", 3, 12, "steer.enabled: want true or false, got a string"}}},
		{"max zero", "role: r\nsteer:\n  max: 0\n", []want{{"h.yaml", 3, 8, "steer.max: must be at least 1, got 0"}}},
		{"max too high", "role: r\nsteer:\n  max: 21\n", []want{{"h.yaml", 3, 8, "steer.max: must be at most 20, got 21"}}},
		{"bad duration", "role: r\nsteer:\n  min_time_left: soon\n", []want{{"h.yaml", 3, 18, `steer.min_time_left: "soon" is not a Go duration (examples: 0s, 90s, 5m)`}}},
		{"negative duration", "role: r\nsteer:\n  min_time_left: -1m\n", []want{{"h.yaml", 3, 18, "steer.min_time_left: must not be negative, got -1m"}}},
		{"unknown key", "role: r\nsteer:\n  every: 10s\n", []want{{"h.yaml", 3, 3, `steer: unknown key "every" (allowed: enabled, max, min_time_left, stdin)`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseHarness("h.yaml", "agent", []byte(tc.src))
			checkProblems(t, probs, tc.want)
		})
	}
}
