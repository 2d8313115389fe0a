package jira

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// APIError is a non-success HTTP status from Jira. Endpoint is the method
// and path template ("GET /rest/api/3/myself"); Messages carries Jira's
// errorMessages and field errors ("field: message"), so a caller can show
// why, e.g., a JQL query was rejected.
type APIError struct {
	Endpoint string
	Status   int
	Messages []string
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("jira %s: HTTP %d %s", e.Endpoint, e.Status, http.StatusText(e.Status))
	if len(e.Messages) > 0 {
		msg += ": " + strings.Join(e.Messages, "; ")
	}
	return msg
}

// IsNotFound reports whether err is a Jira 404.
func IsNotFound(err error) bool { return hasStatus(err, http.StatusNotFound) }

// IsAuth reports whether err is a Jira 401 or 403.
func IsAuth(err error) bool {
	return hasStatus(err, http.StatusUnauthorized) || hasStatus(err, http.StatusForbidden)
}

// IsForbidden reports whether err is a Jira 403 (the credentials are
// valid but lack a permission).
func IsForbidden(err error) bool { return hasStatus(err, http.StatusForbidden) }

// IsBadRequest reports whether err is a Jira 400 (for example invalid JQL).
func IsBadRequest(err error) bool { return hasStatus(err, http.StatusBadRequest) }

func hasStatus(err error, status int) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == status
}

// errorBody is Jira's ErrorCollection.
type errorBody struct {
	ErrorMessages []string          `json:"errorMessages"`
	Errors        map[string]string `json:"errors"`
	Message       string            `json:"message"`
}

// errorMessages extracts Jira's messages from an error body, or a short
// snippet of a body that is not Jira's error JSON.
func errorMessages(body []byte) []string {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil {
		if s := strings.TrimSpace(snippet(body)); s != "" {
			return []string{"response: " + s}
		}
		return nil
	}
	msgs := append([]string(nil), eb.ErrorMessages...)
	keys := make([]string, 0, len(eb.Errors))
	for k := range eb.Errors {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		msgs = append(msgs, k+": "+eb.Errors[k])
	}
	if eb.Message != "" {
		msgs = append(msgs, eb.Message)
	}
	return msgs
}
