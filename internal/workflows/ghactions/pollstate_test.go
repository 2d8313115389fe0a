package ghactions

import (
	"strings"
	"testing"
)

const (
	restoreStep = "      - uses: actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n" +
		"        with:\n          path: s\n          key: st-${{ github.run_id }}\n          restore-keys: st-\n"
	saveStep = "      - if: always()\n        uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n" +
		"        with:\n          path: s\n          key: st-${{ github.run_id }}\n"
)

// stateSteps wraps a poll step in the state cache's restore and save.
func stateSteps(poll string) string { return restoreStep + poll + saveStep }

// TestCheckPollState: a poll job must restore the pollers' state
// directory before polling (per-run key, restore by prefix) and save it
// after under a per-run key; the actions are pinned like any other.
func TestCheckPollState(t *testing.T) {
	const poll = "      - run: fullsend poll --state-dir s\n"
	const combined = "      - uses: actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5\n" +
		"        with:\n          path: s\n          key: st-${{ github.run_id }}\n          restore-keys: st-\n"
	for _, tc := range []struct {
		name, steps string
		want        []string // pieces of the findings' messages, in order
	}{
		{"restore and save", restoreStep + poll + saveStep, nil},
		{"the combined action", combined + poll, nil},
		{"none", poll, []string{"without restoring"}},
		{"restore only", restoreStep + poll, []string{"without saving"}},
		{"save before the poll", restoreStep + saveStep + poll, []string{"without saving"}},
		{"restore after the poll", poll + restoreStep + saveStep, []string{"without restoring"}},
		{"fixed restore key", strings.Replace(restoreStep, "st-${{ github.run_id }}", "st", 1) + poll + saveStep, []string{"fixed key or without restore-keys"}},
		{"no restore-keys", strings.Replace(restoreStep, "          restore-keys: st-\n", "", 1) + poll + saveStep, []string{"fixed key or without restore-keys"}},
		{"fixed save key", restoreStep + poll + strings.Replace(saveStep, "st-${{ github.run_id }}", "st", 1), []string{"saved under a fixed key"}},
		{"cache path is not the state directory", strings.Replace(restoreStep, "path: s", "path: other", 1) + poll + saveStep, []string{"does not hold the poll's state directory"}},
		{"default state directory", strings.Replace(restoreStep, "path: s", "path: ~/.cache/fullsend", 1) + "      - run: fullsend poll\n" + saveStep, nil},
		{"unpinned", strings.Replace(restoreStep, "@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5", "@v5", 1) + poll + saveStep, []string{"movable ref"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			y := "concurrency: p\njobs:\n  b:\n    steps:\n" + tc.steps
			rep := Check([]File{{Name: "w.yml", Data: []byte(y)}})
			if len(rep.Findings) != len(tc.want) {
				t.Fatalf("findings %v, want %d", rep.Findings, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(rep.Findings[i].Message, w) {
					t.Errorf("finding %q does not say %q", rep.Findings[i].Message, w)
				}
			}
		})
	}
}

// TestGeneratedPollKeepsState: the generated poll job passes the check
// and polls with the state directory the cache restores and saves.
func TestGeneratedPollKeepsState(t *testing.T) {
	wf := generated(t, false)[wfDir+PollFile]
	for _, want := range []string{
		"uses: actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5",
		"uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5",
		"path: ${{ runner.temp }}/fullsend-state",
		`run: fullsend poll --state-dir "$RUNNER_TEMP/fullsend-state"`,
		"restore-keys: fullsend-poll-state-",
		"key: fullsend-poll-state-${{ github.run_id }}-${{ github.run_attempt }}",
		"if: always()",
	} {
		if !strings.Contains(wf, want) {
			t.Errorf("generated %s lacks %q", PollFile, want)
		}
	}
	if rep := Check([]File{{Name: wfDir + PollFile, Data: []byte(wf)}}); len(rep.Findings) != 0 {
		t.Fatalf("findings on the generated poll workflow: %v", rep.Findings)
	}
}
