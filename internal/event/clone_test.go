package event

import (
	"reflect"
	"testing"
)

func TestClone(t *testing.T) {
	for _, src := range []string{exampleJSON, pullRequestJSON, discussionJSON} {
		orig, err := Decode([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		orig.Entity.LinkedChangeProposal = &LinkedChangeProposal{ID: 1, URL: "https://x.example/1"}
		orig.Transition.Label = &Label{Name: "l", Action: "added"}
		orig.Transition.Review = &Review{State: "approved", ReviewerID: "r"}
		snapshot := marshal(t, orig)

		c := orig.Clone()
		if !reflect.DeepEqual(c, orig) {
			t.Fatalf("clone differs:\n%+v\n%+v", c, orig)
		}
		c.Entity.LinkedChangeProposal.ID = 99
		c.Transition.Label.Name = "changed"
		c.Transition.Review.State = "dismissed"
		if c.Transition.Comment != nil {
			c.Transition.Comment.Body = "changed"
		}
		if len(c.State.Labels) > 0 {
			c.State.Labels[0] = "changed"
		}
		if c.State.ChangeProposal != nil {
			c.State.ChangeProposal.HeadRef = "changed"
		}
		if c.State.Conversation != nil {
			c.State.Conversation.Category.Name = "changed"
		}
		if got := marshal(t, orig); string(got) != string(snapshot) {
			t.Fatalf("changing the clone changed the original:\n%s\n%s", got, snapshot)
		}
	}
	var nilEvent *Event
	if nilEvent.Clone() != nil {
		t.Fatal("Clone of nil is not nil")
	}
	empty := (&Event{}).Clone()
	if empty.State.Labels != nil {
		t.Fatal("Clone turned nil labels into an empty slice")
	}
}
