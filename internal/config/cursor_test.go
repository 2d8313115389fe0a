package config

import (
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/strictyaml/strictyamltest"
	"github.com/fullsend-dev/fullsend/internal/testfs"
)

const cursorBase = "version: 1\npoll:\n  input_drivers:\n    - type: jira-poll\n      queries: [q]\n"

func TestCursorConfig(t *testing.T) {
	// The project may come after the cursor.
	dir := testfs.WriteTree(t, map[string]string{"config.yaml": cursorBase +
		"      cursor: {store: project, account_id: \"557058:abc\", margin: 5m}\n      project: PROJ\n"})
	c, err := Load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Poll.InputDrivers[0].Cursor
	if want := (Cursor{Store: "project", AccountID: "557058:abc", Margin: 5 * time.Minute}); got != want {
		t.Fatalf("cursor = %+v, want %+v", got, want)
	}
	dir = testfs.WriteTree(t, map[string]string{"config.yaml": cursorBase})
	if c, err = Load(dir, nil); err != nil || c.Poll.InputDrivers[0].Cursor != (Cursor{}) {
		t.Fatalf("no cursor block: %+v, %v (want the zero value: the driver's defaults)", c, err)
	}
}

func TestCursorConfigProblems(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []strictyamltest.Want
	}{
		{"bad store", cursorBase + "      cursor: {store: board}\n", []strictyamltest.Want{{"config.yaml", 6, 23, `cursor.store: "board" is not one of user, project, off`}}},
		{"project store without project", cursorBase + "      cursor: {store: project}\n", []strictyamltest.Want{{"config.yaml", 6, 23, "cursor.store: project needs poll.input_drivers[0].project"}}},
		{"bad margin", cursorBase + "      cursor: {margin: 0s}\n", []strictyamltest.Want{{"config.yaml", 6, 24, "cursor.margin: must be greater than 0"}}},
		{"unknown key", cursorBase + "      cursor: {stor: user}\n", []strictyamltest.Want{{"config.yaml", 6, 16, `unknown key "stor"`}}},
		{"not a mapping", cursorBase + "      cursor: user\n", []strictyamltest.Want{{"config.yaml", 6, 15, "want a mapping"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := testfs.WriteTree(t, map[string]string{"config.yaml": tc.yaml})
			_, err := Load(dir, nil)
			strictyamltest.Check(t, err, tc.want)
		})
	}
}
