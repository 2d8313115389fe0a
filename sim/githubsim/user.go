package githubsim

// GET /user: the token's own account. GitHub's token formats tell the
// kinds apart by prefix: an installation token (ghs_, also a workflow's
// GITHUB_TOKEN) has no user and gets 403; any other token (ghp_,
// github_pat_, gho_, ghu_, or an emulator token) is a person's.

import (
	"net/http"
	"strings"
	"time"
)

// InstallationTokenPrefix starts GitHub App installation tokens.
const InstallationTokenPrefix = "ghs_"

// presentedToken is the credential of an "Authorization: Bearer T" or
// "token T" header.
func presentedToken(r *http.Request) string {
	a := r.Header.Get("Authorization")
	for _, p := range []string{"Bearer ", "bearer ", "token "} {
		if t, ok := strings.CutPrefix(a, p); ok {
			return t
		}
	}
	return ""
}

func (s *Server) handleUser(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(presentedToken(r), InstallationTokenPrefix) {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := view{s: s, api: apiBase(r)}
	u := v.user(s.opts.Login)
	since := ts(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	for k, x := range map[string]any{"name": s.opts.Login, "company": nil, "blog": "", "location": nil, "email": nil,
		"hireable": nil, "bio": nil, "twitter_username": nil, "public_repos": 0, "public_gists": 0, "followers": 0,
		"following": 0, "created_at": since, "updated_at": since, "private_gists": 0, "total_private_repos": 0,
		"owned_private_repos": 0, "disk_usage": 0, "collaborators": 0, "two_factor_authentication": true} {
		u[k] = x
	}
	writeJSON(w, http.StatusOK, u)
}
