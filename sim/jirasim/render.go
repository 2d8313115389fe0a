package jirasim

import (
	"encoding/json"
	"net/url"
	"strconv"
	"time"
)

// obj is a JSON object under construction.
type obj = map[string]any

func itoa(n int) string { return strconv.Itoa(n) }

// jtime formats a timestamp: RFC 3339 with milliseconds by default, or
// Jira Cloud's wire form (+0000) with Options.CompactOffsets.
func (s *Server) jtime(t time.Time) string {
	if s.opts.CompactOffsets {
		return t.UTC().Format(jiraTimeLayout)
	}
	return t.UTC().Format(rfc3339Millis)
}

func (s *Server) userJSON(base, id string) obj {
	u := s.user(id)
	return obj{
		"self":        base + "/rest/api/3/user?accountId=" + url.QueryEscape(u.AccountID),
		"accountId":   u.AccountID,
		"accountType": u.AccountType,
		"displayName": u.DisplayName,
		"active":      true,
		"timeZone":    "UTC",
	}
}

func statusJSON(base string, st *statusDef) obj {
	cat := categories[st.category]
	return obj{
		"self":        base + "/rest/api/3/status/" + st.id,
		"description": "",
		"iconUrl":     base + "/images/icons/statuses/generic.png",
		"name":        st.name,
		"id":          st.id,
		"statusCategory": obj{
			"self":      base + "/rest/api/3/statuscategory/" + itoa(cat.id),
			"id":        cat.id,
			"key":       st.category,
			"colorName": cat.color,
			"name":      cat.name,
		},
	}
}

func projectJSON(base string, p *project) obj {
	id := strconv.FormatInt(p.id, 10)
	return obj{"self": base + "/rest/api/3/project/" + id, "id": id, "key": p.key, "name": p.name,
		"projectTypeKey": "software", "simplified": false}
}

// fieldValue renders one field of an issue state, ok false when the
// issue has no such field.
func (s *Server) fieldValue(base string, is *issue, st issueState, name string) (any, bool) {
	switch name {
	case "summary":
		return st.summary, true
	case "description":
		if st.description == "" {
			return nil, false // Jira's null; omitted, as the description's fields map admits no null
		}
		return json.RawMessage(textADF(st.description)), true
	case "labels":
		return st.labels, true
	case "created":
		return s.jtime(is.created), true
	case "updated":
		return s.jtime(st.updated), true
	case "status":
		return statusJSON(base, st.status), true
	case "reporter":
		return s.userJSON(base, is.reporter), true
	case "creator":
		return s.userJSON(base, is.creator), true
	case "project":
		return projectJSON(base, is.project), true
	case "assignee":
		if st.assignee == "" {
			return nil, false
		}
		return s.userJSON(base, st.assignee), true
	case "resolutiondate":
		if st.resolved.IsZero() {
			return nil, false
		}
		return s.jtime(st.resolved), true
	case "comment":
		return s.commentPageJSON(base, is, st), true
	}
	v, ok := st.fields[name]
	return v, ok
}

// allFields lists the fields "*all" and "*navigable" return.
var allFields = []string{"summary", "description", "labels", "created", "updated", "status", "reporter", "creator", "project",
	"assignee", "resolutiondate", "comment"}

func (s *Server) issueJSON(base string, is *issue, st issueState, fields, props []string, changelog bool) obj {
	id := strconv.FormatInt(is.id, 10)
	fv := obj{}
	for _, f := range expandFields(fields, st) {
		if v, ok := s.fieldValue(base, is, st, f); ok {
			fv[f] = v
		}
	}
	out := obj{"id": id, "key": is.key, "self": base + "/rest/api/3/issue/" + id, "fields": fv}
	if len(props) > 0 {
		pv := obj{}
		for _, p := range props {
			if v, ok := st.props[p]; ok {
				pv[p] = json.RawMessage(v)
			}
		}
		out["properties"] = pv
	}
	if changelog {
		hs := make([]obj, 0, len(is.histories))
		for _, h := range is.histories {
			hs = append(hs, s.historyJSON(base, h))
		}
		out["changelog"] = obj{"startAt": 0, "maxResults": len(hs), "total": len(hs), "histories": hs}
	}
	return out
}

// expandFields resolves *all / *navigable and "-field" exclusions.
func expandFields(fields []string, st issueState) []string {
	var out []string
	exclude := map[string]bool{}
	for _, f := range fields {
		switch {
		case f == "*all" || f == "*navigable":
			out = append(out, allFields...)
			for k := range st.fields {
				out = append(out, k)
			}
		case len(f) > 1 && f[0] == '-':
			exclude[f[1:]] = true
		case f == "id" || f == "key":
		default:
			out = append(out, f)
		}
	}
	kept := out[:0]
	seen := map[string]bool{}
	for _, f := range out {
		if !exclude[f] && !seen[f] {
			seen[f] = true
			kept = append(kept, f)
		}
	}
	return kept
}

func (s *Server) historyJSON(base string, h *history) obj {
	items := make([]obj, 0, len(h.items))
	for _, it := range h.items {
		o := obj{"field": it.field, "fieldtype": it.fieldType, "fieldId": it.fieldID}
		for k, v := range map[string]string{"from": it.from, "fromString": it.fromString, "to": it.to, "toString": it.toString} {
			if v != "" {
				o[k] = v
			}
		}
		items = append(items, o)
	}
	return obj{"id": strconv.FormatInt(h.id, 10), "author": s.userJSON(base, h.author), "created": s.jtime(h.created), "items": items}
}

func (s *Server) commentJSON(base string, is *issue, c *comment) obj {
	id := strconv.FormatInt(c.id, 10)
	return obj{
		"self":         base + "/rest/api/3/issue/" + strconv.FormatInt(is.id, 10) + "/comment/" + id,
		"id":           id,
		"author":       s.userJSON(base, c.author),
		"body":         c.body,
		"updateAuthor": s.userJSON(base, c.updateAuthor),
		"created":      s.jtime(c.created),
		"updated":      s.jtime(c.updated),
		"jsdPublic":    true,
	}
}
