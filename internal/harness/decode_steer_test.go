package harness

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
)

func TestParseSteer(t *testing.T) {
	cases := []struct {
		name, src string
		want      Steer
	}{
		{"off by default", "role: r\n", Steer{Max: 2, MinTimeLeft: 5 * time.Minute}},
		{"enabled", "role: r\nsteer: {enabled: true}\n", Steer{Enabled: true, Max: 2, MinTimeLeft: 5 * time.Minute}},
		{"all set", "role: r\nsteer:\n  enabled: true\n  max: 5\n  min_time_left: 0s\n  stdin: true\n",
			Steer{Enabled: true, Max: 5, MinTimeLeft: 0, Stdin: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			if h.Steer != tc.want {
				t.Errorf("got %+v, want %+v", h.Steer, tc.want)
			}
		})
	}
}

func TestSteerProblems(t *testing.T) {
	cases := []struct {
		name, src string
		want      []strictyamltest.Want
	}{
		{"not a mapping", "role: r\nsteer: true\n", []strictyamltest.Want{{"h.yaml", 2, 8, "steer: want a mapping, got a boolean"}}},
		{"bad enabled", "role: r\nsteer:\n  enabled: yes please\n", []strictyamltest.Want{{"h.yaml", 3, 12, "steer.enabled: want true or false, got a string"}}},
		{"max zero", "role: r\nsteer:\n  max: 0\n", []strictyamltest.Want{{"h.yaml", 3, 8, "steer.max: must be at least 1, got 0"}}},
		{"max too high", "role: r\nsteer:\n  max: 21\n", []strictyamltest.Want{{"h.yaml", 3, 8, "steer.max: must be at most 20, got 21"}}},
		{"bad duration", "role: r\nsteer:\n  min_time_left: soon\n", []strictyamltest.Want{{"h.yaml", 3, 18, `steer.min_time_left: "soon" is not a Go duration (examples: 0s, 90s, 5m)`}}},
		{"negative duration", "role: r\nsteer:\n  min_time_left: -1m\n", []strictyamltest.Want{{"h.yaml", 3, 18, "steer.min_time_left: must not be negative, got -1m"}}},
		{"unknown key", "role: r\nsteer:\n  every: 10s\n", []strictyamltest.Want{{"h.yaml", 3, 3, `steer: unknown key "every" (allowed: enabled, max, min_time_left, stdin)`}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, probs := ParseFile("h.yaml", "agent", []byte(tc.src))
			strictyamltest.Check(t, probs, tc.want)
		})
	}
}
