package githubentity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/event"
	"github.com/fullsend-dev/fullsend/internal/github"
	"github.com/fullsend-dev/fullsend/internal/input/ghaevent"
)

// roles sets the current role of every human actor of e's activity
// whose role is not known yet: one permission lookup per distinct login
// (case-insensitive) in this resolution. A lookup GitHub answers with 404
// (no such account on the repository: a deleted or renamed user) is role
// none; any other failure fails the resolution, so that the entity's
// evaluation is denied rather than decided on a guessed role.
func (r *Resolver) roles(ctx context.Context, owner, name string, e *entity.Entity) error {
	seen := map[string]event.Role{}
	for i := range e.Activity {
		a := &e.Activity[i].Actor
		if a.Role != "" {
			continue
		}
		key := strings.ToLower(a.ID)
		role, ok := seen[key]
		if !ok {
			var err error
			if role, err = r.role(ctx, owner, name, a.ID); err != nil {
				return fmt.Errorf("looking up the current role of %s: %w", a.ID, err)
			}
			seen[key] = role
		}
		a.Role = role
	}
	return nil
}

func (r *Resolver) role(ctx context.Context, owner, name, login string) (event.Role, error) {
	perm, err := r.perms.Permission(ctx, owner, name, login)
	var f *github.Failure
	switch {
	case errors.As(err, &f) && f.Status == http.StatusNotFound:
		return event.RoleNone, nil
	case err != nil:
		return "", err
	}
	role, known := ghaevent.RoleOf(perm)
	if !known {
		r.o.Log.Warn("unknown collaborator permission; the actor's role is none", "actor", login,
			"repo", owner+"/"+name, "permission", perm)
	}
	return role, nil
}
