package jira

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// decodeStrict decodes a response like decode, then requires every named
// top-level field to be present and not null. A page that lacks its list
// (a `200 {}` from a proxy or a broken deployment) is an error for the
// item asked about, never an empty list: reading it as "nothing new"
// would let the checkpoint pass changes nobody saw.
func decodeStrict(cl call, body []byte, v any, required ...string) error {
	if err := decode(cl, body, v); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return fmt.Errorf("jira %s: malformed response: not a JSON object", cl.endpoint())
	}
	for _, name := range required {
		raw, ok := fields[name]
		if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return fmt.Errorf("jira %s: response has no %q field (want %v)", cl.endpoint(), name, required)
		}
	}
	return nil
}
