package entity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// goldens are the example entities, one per system and kind.
var goldens = []string{
	"jira-work-item.json",
	"github-work-item.json",
	"github-change-proposal.json",
	"gitlab-work-item.json",
	"gitlab-change-proposal.json",
}

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeGolden(t testing.TB, name string) *Entity {
	t.Helper()
	e, err := Decode(readGolden(t, name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return e
}

func TestGoldensAreValid(t *testing.T) {
	seen := map[[2]string]bool{}
	for _, name := range goldens {
		t.Run(name, func(t *testing.T) {
			e := decodeGolden(t, name)
			if err := e.Validate(); err != nil {
				t.Fatalf("Validate of the decoded golden: %v", err)
			}
			seen[[2]string{e.Source.System, e.Kind}] = true
			// A decoded entity encodes to a document that decodes to the same.
			again, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			e2, err := Decode(again)
			if err != nil {
				t.Fatalf("re-encoded golden rejected: %v\n%s", err, again)
			}
			if third, _ := json.Marshal(e2); !bytes.Equal(again, third) {
				t.Fatalf("round trip changed the entity:\n%s\n%s", again, third)
			}
		})
	}
	for _, want := range [][2]string{
		{SystemJira, KindWorkItem}, {SystemGitHub, KindWorkItem}, {SystemGitHub, KindChangeProposal},
		{SystemGitLab, KindWorkItem}, {SystemGitLab, KindChangeProposal},
	} {
		if !seen[want] {
			t.Errorf("no golden entity for %s %s", want[0], want[1])
		}
	}
}

// A comment on a pull request arrives as an event about a work item linked
// to the change proposal; it resolves to the pull request's entity.
func TestPullRequestCommentResolvesToThePullRequest(t *testing.T) {
	ev, err := event.Decode(readGolden(t, "github-pr-comment.event.json"))
	if err != nil {
		t.Fatal(err)
	}
	pr := decodeGolden(t, "github-change-proposal.json")
	if got, want := RefOf(ev), pr.Ref(); got != want {
		t.Fatalf("RefOf(PR comment event) = %s, want the PR's %s", got, want)
	}
	if ev.Entity.LinkedChangeProposal.URL != pr.URL {
		t.Errorf("linked_change_proposal.url %q, entity url %q", ev.Entity.LinkedChangeProposal.URL, pr.URL)
	}
	// The comment the event carries is an element of the entity's activity.
	found := false
	for _, a := range pr.Activity {
		found = found || a.Kind == ElementComment && a.ID == ev.Transition.Comment.ID && a.Command == ev.Transition.Comment.Command
	}
	if !found {
		t.Errorf("comment %s is not in the PR's activity", ev.Transition.Comment.ID)
	}
	// Without the link the same event is about the issue it names.
	ev.Entity.LinkedChangeProposal = nil
	if got := RefOf(ev); got.Kind != KindWorkItem || got == pr.Ref() {
		t.Errorf("unlinked event resolves to %s", got)
	}
}

func TestSchemaReusesEventDefinitions(t *testing.T) {
	// The role enum, repo pattern and Jira key pattern are the event
	// schema's: a change there is a change here, never a copy to update.
	for _, own := range []string{`"pattern"`, `"admin"`, `"maintain"`} {
		if strings.Contains(string(Schema()), own) {
			t.Errorf("the entity schema restates %s instead of referencing the event schema", own)
		}
	}
	e := decodeGolden(t, "jira-work-item.json")
	e.Activity[0].Actor.Role = "owner"
	e.Key = "proj 1"
	e.Repo = "a/../b"
	err := e.Validate()
	var verr *event.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("got %v, want a validation error", err)
	}
	for _, want := range []string{
		`/activity/0/actor/role: must be one of "admin", "maintain", "write", "triage", "read", "none", "external" (got "owner")`,
		`/key: must be a Jira issue key such as PROJ-123 (got "proj 1")`,
		`/repo: must not contain a ".." segment`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestTextElementUsesTheEventCommentRule(t *testing.T) {
	actor := event.Actor{ID: "u", Kind: event.ActorHuman, Role: event.RoleWrite}
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	long := "/fs-fix " + strings.Repeat("x", event.MaxCommentBody+10)
	el := TextElement(ElementComment, "9", at, actor, long)
	wantCmd, wantInstr := event.ParseCommand(event.Truncate(long, event.MaxCommentBody))
	if el.Command != wantCmd || el.Instruction != wantInstr || el.Command != "/fs-fix" {
		t.Errorf("command %q instruction %d chars, want %q and %d", el.Command, len(el.Instruction), wantCmd, len(wantInstr))
	}
	if !el.Truncated || el.OriginalLength != len(long) || len(el.Body) != event.MaxCommentBody {
		t.Errorf("truncated %v original %d body %d", el.Truncated, el.OriginalLength, len(el.Body))
	}
	e := decodeGolden(t, "github-work-item.json")
	e.Activity = append([]Element{el}, e.Activity[1:]...)
	e.Activity[0].Created = e.Activity[1].Created.Add(time.Hour)
	if err := e.Validate(); err != nil {
		t.Fatalf("entity with a built element: %v", err)
	}
}

func TestBound(t *testing.T) {
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var els []Element
	for i := range MaxActivity + 5 { // oldest first, as platforms list them
		els = append(els, Element{Kind: ElementComment, ID: string(rune('a' + i%26)), Created: base.Add(time.Duration(i) * time.Minute)})
	}
	got, cut := Bound(els)
	if !cut || len(got) != MaxActivity {
		t.Fatalf("Bound kept %d (truncated %v), want %d truncated", len(got), cut, MaxActivity)
	}
	if !got[0].Created.Equal(els[len(els)-1].Created) || !got[MaxActivity-1].Created.Equal(els[5].Created) {
		t.Errorf("Bound kept %v..%v, want the newest first", got[0].Created, got[MaxActivity-1].Created)
	}
	if !els[0].Created.Equal(base) {
		t.Error("Bound modified its argument")
	}
	few, cut := Bound(els[:3])
	if cut || len(few) != 3 || !few[0].Created.After(few[2].Created) {
		t.Errorf("Bound of 3: %d, truncated %v", len(few), cut)
	}
	if none, _ := Bound(nil); none == nil {
		t.Error("Bound(nil) is nil, want an empty list")
	}
}

func TestComputeVersion(t *testing.T) {
	base := decodeGolden(t, "jira-work-item.json")
	v := ComputeVersion(base, nil)
	if !strings.HasPrefix(v, "v1:") || len(v) > MaxVersion {
		t.Fatalf("version %q", v)
	}
	changes := map[string]func(e *Entity){
		"updated":      func(e *Entity) { e.State.Updated = e.State.Updated.Add(time.Second) },
		"label":        func(e *Entity) { e.State.Labels = append(e.State.Labels, "x") },
		"new element":  func(e *Entity) { e.Activity = append(e.Activity, Element{Kind: ElementComment, ID: "1", Body: "hi"}) },
		"edited body":  func(e *Entity) { e.Activity[0].Body += "!" },
		"status":       func(e *Entity) { e.State.Status = "Done" },
		"removed elem": func(e *Entity) { e.Activity = e.Activity[1:] },
	}
	for name, change := range changes {
		e := decodeGolden(t, "jira-work-item.json")
		change(e)
		if ComputeVersion(e, nil) == v {
			t.Errorf("%s: version unchanged", name)
		}
	}
	same := map[string]func(e *Entity){
		"role":    func(e *Entity) { e.Activity[0].Actor.Role = event.RoleNone },
		"receipt": func(e *Entity) { e.Receipt = &Receipt{Version: v, Run: "1", Outcome: "succeeded", Attempts: 1} },
		"version": func(e *Entity) { e.Version = "other" },
	}
	for name, change := range same {
		e := decodeGolden(t, "jira-work-item.json")
		change(e)
		if ComputeVersion(e, nil) != v {
			t.Errorf("%s: version changed", name)
		}
	}
	if base.Activity[0].Actor.Role != event.RoleWrite {
		t.Error("ComputeVersion modified the entity")
	}
}

// TestComputeVersionOwnEffects: what the tool's own accounts do (a
// comment, a label, the update time their writes move) is no new version;
// anyone else's change still is.
func TestComputeVersionOwnEffects(t *testing.T) {
	const bot = "acct-fullsend"
	own := func(id string) bool { return id == bot }
	base := decodeGolden(t, "jira-work-item.json")
	v := ComputeVersion(base, own)
	ownComment := Element{Kind: ElementComment, ID: "900", Created: base.State.Updated.Add(time.Minute), Actor: event.Actor{ID: bot, Kind: event.ActorBot}, Body: "triaged"}
	ownLabel := Element{Kind: ElementLabel, ID: "901", Created: base.State.Updated.Add(time.Minute), Actor: event.Actor{ID: bot, Kind: event.ActorBot}, Label: "triaged"}
	same := map[string]func(e *Entity){
		"own comment": func(e *Entity) {
			e.Activity = append([]Element{ownComment}, e.Activity...)
			e.State.Updated = ownComment.Created
		},
		"own label": func(e *Entity) {
			e.Activity = append([]Element{ownLabel}, e.Activity...)
			e.State.Labels = append(e.State.Labels, "triaged")
		},
	}
	for name, change := range same {
		e := decodeGolden(t, "jira-work-item.json")
		change(e)
		if got := ComputeVersion(e, own); got != v {
			t.Errorf("%s: version changed", name)
		}
		if ComputeVersion(e, nil) == ComputeVersion(base, nil) {
			t.Errorf("%s: without own accounts the version should change", name)
		}
	}
	other := decodeGolden(t, "jira-work-item.json")
	other.Activity = append([]Element{{Kind: ElementComment, ID: "902", Created: other.State.Updated.Add(time.Minute), Actor: event.Actor{ID: "acct-person", Kind: event.ActorHuman}, Body: "again"}}, other.Activity...)
	if ComputeVersion(other, own) == v {
		t.Error("a person's comment: version unchanged")
	}
}

// TestVersionOverABusyEntity: the version is over the newest
// MaxActivity elements that are not the tool's own, out of every element
// read (VersionOver): the tool's own elements, however many, push none
// out; the bounded activity and its truncation are the entity's own
// business. A person's element still changes it.
func TestVersionOverABusyEntity(t *testing.T) {
	const bot = "acct-fullsend"
	own := func(id string) bool { return id == bot }
	base := decodeGolden(t, "jira-work-item.json")
	at := base.State.Updated
	var people []Element
	for i := range MaxActivity + 5 {
		at = at.Add(time.Minute)
		people = append(people, Element{Kind: ElementComment, ID: fmt.Sprint(1000 + i), Created: at,
			Actor: event.Actor{ID: "acct-person", Kind: event.ActorHuman}, Body: "note"})
	}
	for _, n := range []int{MaxActivity - 1, MaxActivity, MaxActivity + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			read := people[:n]
			v := VersionOver(base, read, false, own)
			all := slices.Clone(read)
			for i := range 3 {
				all = append(all, Element{Kind: ElementComment, ID: fmt.Sprint(2000 + i), Created: at.Add(time.Duration(i+1) * time.Minute),
					Actor: event.Actor{ID: bot, Kind: event.ActorBot}, Body: "done"})
				e := *base
				e.Activity, e.ActivityTruncated = Bound(all)
				if got := VersionOver(&e, all, false, own); got != v {
					t.Fatalf("%d own comments on %d elements changed the version", i+1, n)
				}
			}
			more := append(slices.Clone(all), Element{Kind: ElementComment, ID: "3000", Created: at.Add(time.Hour),
				Actor: event.Actor{ID: "acct-person", Kind: event.ActorHuman}, Body: "again"})
			if VersionOver(base, more, false, own) == v {
				t.Error("a person's comment: version unchanged")
			}
		})
	}
}

// TestComputeVersionUnencodableTime: a time JSON cannot encode (past year
// 9999) gives a version instead of a panic, and still one that changes.
func TestComputeVersionUnencodableTime(t *testing.T) {
	e := decodeGolden(t, "jira-work-item.json")
	e.State.Created = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	v := ComputeVersion(e, nil)
	e.State.Title += "!"
	if v == "" || ComputeVersion(e, nil) == v {
		t.Errorf("version %q did not change with the title", v)
	}
}

// A manual or schedule event about a Jira issue is about the Jira entity;
// without a key its system stays the event's.
func TestRefOfManualAndScheduleEvents(t *testing.T) {
	for _, tc := range []struct {
		system, key, want string
	}{
		{event.SystemSchedule, "PROJ-7", SystemJira},
		{event.SystemManual, "PROJ-7", SystemJira},
		{event.SystemJira, "PROJ-7", SystemJira},
		{event.SystemManual, "", event.SystemManual},
		{event.SystemGitHub, "", SystemGitHub},
	} {
		ev := &event.Event{Repo: "acme/platform", Source: event.Source{System: tc.system},
			Entity: event.Entity{Kind: KindWorkItem, ID: 10042, Key: tc.key}}
		if got := RefOf(ev); got.System != tc.want || got.ID != 10042 {
			t.Errorf("%s event, key %q: %s, want system %s", tc.system, tc.key, got, tc.want)
		}
	}
}
