package github

import (
	"context"
	"errors"
	"net/http"

	gogithub "github.com/google/go-github/v90/github"
)

// ActionsBot is the account of a workflow's built-in GITHUB_TOKEN (and
// the name GitHub shows for what an installation token writes there),
// which cannot read its own user: GET /user answers 403.
const ActionsBot = "github-actions[bot]"

// ErrTokenRefused marks a token GitHub refused (401).
var ErrTokenRefused = errors.New("GitHub refused the token")

// tokenRefused is a 401's error, reading as the failure itself, that is
// ErrTokenRefused.
type tokenRefused struct{ error }

func (e tokenRefused) Is(target error) bool { return target == ErrTokenRefused }
func (e tokenRefused) Unwrap() error        { return e.error }

// Self returns the login of the token's own account (GET /user, one
// call), or ActionsBot when the token has no user (403 or 404: an
// installation token). A refused token is an error wrapping
// ErrTokenRefused; any other failure is returned as is.
func Self(ctx context.Context, c *gogithub.Client, p Policy) (string, error) {
	var u *gogithub.User
	_, err := Call(ctx, p, func(ctx context.Context) (*gogithub.Response, error) {
		var resp *gogithub.Response
		var err error
		u, resp, err = c.Users.Get(ctx, "")
		return resp, err
	})
	var f *Failure
	switch {
	case err == nil:
		return u.GetLogin(), nil
	case errors.As(err, &f) && f.Status == http.StatusUnauthorized:
		return "", tokenRefused{err}
	case errors.As(err, &f) && (f.Status == http.StatusForbidden || f.Status == http.StatusNotFound):
		return ActionsBot, nil
	}
	return "", err
}
