package jsonout

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/plan"
	"github.com/fullsend-dev/fullsend/internal/scope"
)

func sampleRun() plan.Run {
	ev := &event.Event{
		Repo:       "acme/platform",
		Entity:     event.Entity{Kind: event.KindWorkItem, ID: 10042, Key: "PROJ-123", URL: "https://acme.atlassian.net/browse/PROJ-123"},
		Transition: event.Transition{Kind: event.CommentAdded, Comment: &event.Comment{Body: "/fs-triage check", Command: "/fs-triage", Instruction: "check"}},
		Actor:      event.Actor{ID: "557058:abc", Kind: "human", Role: "write"},
		State:      event.State{Labels: []string{"bug"}},
		Source:     event.Source{System: "jira", RawType: "comment", RawAction: "created"},
	}
	return plan.Run{Harness: "triage", Role: "triage", Event: ev, Key: scope.KeyOf("triage", ev, "github"), WorkItem: plan.WorkItemOf(ev)}
}

func TestJSONPlanShapes(t *testing.T) {
	cases := []struct {
		driver string
		runs   int
		want   string
	}{
		{"json", 0, "[]\n"},
		{"gha-matrix", 0, `{"include":[]}` + "\n"},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		d, err := New(c.driver, &buf)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if buf.String() != c.want {
			t.Errorf("%s empty plan = %q, want %q", c.driver, buf.String(), c.want)
		}
	}
}

func TestJSONPlanEntryHasExactlyNineFields(t *testing.T) {
	for _, name := range []string{"json", "gha-matrix"} {
		var buf bytes.Buffer
		d, _ := New(name, &buf)
		r := sampleRun()
		res := d.Dispatch(context.Background(), []plan.Run{r})
		if res[0].Err != nil || res[0].Ref != nil {
			t.Fatalf("result = %+v", res[0])
		}
		d.Dispatch(context.Background(), []plan.Run{r})
		if err := d.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		var entries []map[string]any
		if name == "json" {
			if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
				t.Fatal(err)
			}
		} else {
			var m map[string][]map[string]any
			if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			if len(m) != 1 {
				t.Fatalf("matrix keys = %v", m)
			}
			entries = m["include"]
		}
		if len(entries) != 2 {
			t.Fatalf("%s: %d entries", name, len(entries))
		}
		e := entries[0]
		if len(e) != 9 {
			t.Fatalf("%s: entry has %d fields: %v", name, len(e), e)
		}
		for _, k := range plan.Always {
			if _, ok := e[k].(string); !ok {
				t.Errorf("%s: field %s missing or not a string", name, k)
			}
		}
		if e["serialization_key"] != "triage:acme/platform:jira:work_item:10042" {
			t.Errorf("key = %v", e["serialization_key"])
		}
		if e["poll_lock"] != "" {
			t.Errorf("poll_lock = %v", e["poll_lock"])
		}
		if e["work_item"] != `{"url":"https://acme.atlassian.net/browse/PROJ-123","source":"jira","key":"PROJ-123"}` {
			t.Errorf("work_item = %v", e["work_item"])
		}
		if e["event_payload"] != `{"issue":{"number":10042,"html_url":"https://acme.atlassian.net/browse/PROJ-123"},"comment":{"body":"/fs-triage check"}}` {
			t.Errorf("event_payload = %v", e["event_payload"])
		}
		var back event.Event
		if err := json.Unmarshal([]byte(e["normalized_event"].(string)), &back); err != nil || back.Entity.Key != "PROJ-123" {
			t.Errorf("normalized_event round trip: %v %+v", err, back.Entity)
		}
	}
}

func TestDispatchAfterCloseFails(t *testing.T) {
	var buf bytes.Buffer
	d, _ := New("json", &buf)
	_ = d.Close(context.Background())
	if res := d.Dispatch(context.Background(), []plan.Run{sampleRun()}); res[0].Err == nil {
		t.Fatal("dispatch after close succeeded")
	}
	if _, err := New("yaml", &buf); err == nil {
		t.Fatal("unknown driver accepted")
	}
}
