package githubsim

// Webhook deliveries: what GitHub Actions hands a workflow (the event name
// and the $GITHUB_EVENT_PATH payload) for each change made through the Go
// API, so a test can feed it to the gha-event input driver or drop it.

import "encoding/json"

// Delivery is one webhook delivery.
type Delivery struct {
	// Event is the event name: "issues", "issue_comment", "pull_request"
	// or "pull_request_review".
	Event string
	// Payload is the JSON event payload.
	Payload []byte
}

// deliveryView renders payload objects with the REST base the server
// listens on (https://api.github.com/ before Start). The caller holds s.mu.
func (s *Server) deliveryView(st *repoState, repo string) view {
	api := s.apiURL
	if api == "" {
		api = "https://api.github.com/"
	}
	return view{s: s, st: st, repo: repo, api: api}
}

func deliver(event string, payload map[string]any) Delivery {
	b, err := json.Marshal(payload)
	if err != nil {
		panic("githubsim: delivery payload: " + err.Error()) // maps of plain values always encode
	}
	return Delivery{Event: event, Payload: b}
}

// issueDelivery is the "issues" delivery of action on is, or the
// "pull_request" one when is is a pull request; label names the label of
// labeled and unlabeled.
func (s *Server) issueDelivery(st *repoState, repo string, is *issue, action, sender, label string) Delivery {
	v := s.deliveryView(st, repo)
	p := map[string]any{"action": action, "repository": v.repoObject(repo), "sender": v.user(sender)}
	if label != "" {
		p["label"] = v.label(label)
	}
	if is.Pull != nil {
		p["number"], p["pull_request"] = is.Number, v.pull(is)
		return deliver("pull_request", p)
	}
	p["issue"] = v.issue(is)
	return deliver("issues", p)
}

func (s *Server) commentDelivery(st *repoState, repo string, is *issue, c *comment) Delivery {
	v := s.deliveryView(st, repo)
	return deliver("issue_comment", map[string]any{"action": "created", "issue": v.issue(is), "comment": v.comment(c),
		"repository": v.repoObject(repo), "sender": v.user(c.Author)})
}

func (s *Server) reviewDelivery(st *repoState, repo string, is *issue, rv *review) Delivery {
	v := s.deliveryView(st, repo)
	return deliver("pull_request_review", map[string]any{"action": "submitted", "review": v.review(rv),
		"pull_request": v.pull(is), "repository": v.repoObject(repo), "sender": v.user(rv.User)})
}
