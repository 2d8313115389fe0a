package github

// Answer checks.
//
// go-github's decoders do not panic on malformed answers (FuzzAnswers),
// but a listing holding a null where an element should be reaches the
// caller as a nil element, which the callers would dereference. GitHub's
// REST description allows no null array element in any answer fullsend
// reads, so the client's outermost transport (answerCheck) reads every
// success answer before go-github decodes it and rejects one whose JSON
// holds a null directly in an array: the call fails with a
// *MalformedError, which Classify makes a Permanent failure of a 2xx (the
// call took effect, its answer cannot be used), never retried and never a
// refusal.

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"

	"github.com/fullsend-dev/fullsend/internal/httpx"
)

// MalformedError is a success answer the client refused to hand to
// go-github.
type MalformedError struct {
	Method, Path string
	Status       int
	Reason       string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("malformed GitHub answer to %s %s (status %d): %s", e.Method, e.Path, e.Status, e.Reason)
}

// answerCheck is the transport that checks every success answer (see
// the top of this file).
type answerCheck struct{ next http.RoundTripper }

func (t answerCheck) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Body == nil {
		return resp, err
	}
	body, err := httpx.ReadBody(resp)
	if err != nil {
		return nil, err
	}
	if i, ok := nullElement(body); ok {
		return nil, &MalformedError{Method: req.Method, Path: req.URL.EscapedPath(), Status: resp.StatusCode,
			Reason: fmt.Sprintf("a null array element at byte %d", i)}
	}
	return resp, nil
}

// CloseIdleConnections forwards to the wrapped transport.
func (t answerCheck) CloseIdleConnections() { httpx.CloseIdle(t.next) }

// nullElement reports the offset of a null directly inside an array in
// the first JSON value of body, the one go-github decodes. It scans the
// bytes once (a listing page is read at the speed of the network, not of
// a tokenizer); a body that is no JSON is left to go-github's decoder,
// which fails on it.
func nullElement(body []byte) (int, bool) {
	var arrays []bool // per open container: is it an array
	elem := false     // the next value is an array element
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
			}
			elem = false
		case '[', '{':
			arrays = append(arrays, body[i] == '[')
			elem = body[i] == '['
		case ']', '}':
			if len(arrays) > 0 {
				arrays = arrays[:len(arrays)-1]
			}
			elem = false
		case ',':
			elem = len(arrays) > 0 && arrays[len(arrays)-1]
		case 'n':
			if elem && bytes.HasPrefix(body[i:], []byte("null")) {
				return i, true
			}
			elem = false
		default:
			elem = false
		}
		if len(arrays) == 0 {
			return 0, false // the first value ended
		}
	}
	return 0, false
}

// malformed reports whether err is a *MalformedError, and its status.
func malformed(err error) (int, bool) {
	var me *MalformedError
	if errors.As(err, &me) {
		return me.Status, true
	}
	return 0, false
}
