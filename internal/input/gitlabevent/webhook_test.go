package gitlabevent

import (
	"fmt"
	"testing"

	"github.com/fullsend-dev/fullsend/internal/event"
)

// TestUpdateKinds: what an "update" becomes, first match wins: new
// commits, labels, draft to ready, title or description, anything else.
func TestUpdateKinds(t *testing.T) {
	tests := []struct {
		kind, attrs, changes, want string
		labels                     int
	}{
		{"merge_request", `"oldrev":"ab"`, `"labels":{"previous":[],"current":[{"title":"x"}]}`, event.Synchronized, 0},
		{"merge_request", `"oldrev":""`, `"labels":{"previous":[{"title":"y"}],"current":[{"title":"x"}]}`, event.LabelChanged, 2},
		{"merge_request", ``, `"labels":{"previous":[{"title":"x"}],"current":[{"title":"x"}]},"draft":{"previous":true,"current":false}`, event.MarkedReady, 0},
		{"merge_request", ``, `"draft":{"previous":false,"current":true}`, event.Updated, 0},
		{"issue", ``, `"draft":{"previous":true,"current":false}`, event.Updated, 0},
		{"issue", `"oldrev":"ab"`, `"title":{"previous":"a","current":"b"}`, event.Edited, 0},
		{"issue", ``, `"description":{"previous":"a","current":"b"}`, event.Edited, 0},
		{"issue", ``, `"updated_at":{"previous":"a","current":"b"}`, event.Updated, 0},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			attrs := `"iid":3,"action":"update"`
			if tt.attrs != "" {
				attrs += "," + tt.attrs
			}
			body := fmt.Sprintf(`{"object_kind":%q,"user":{"id":1,"username":"u"},"project":{"id":1,"path_with_namespace":"a/b"},"object_attributes":{%s},"changes":{%s}}`,
				tt.kind, attrs, tt.changes)
			c, err := ParseWebhook([]byte(body))
			if err != nil {
				t.Fatal(err)
			}
			if c.Transition != tt.want || len(c.LabelChanges) != tt.labels {
				t.Fatalf("transition %s with %d label changes, want %s with %d", c.Transition, len(c.LabelChanges), tt.want, tt.labels)
			}
		})
	}
}
