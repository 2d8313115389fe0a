package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fullsend-dev/fullsend/internal/steer/post"
)

// steerOptions are the arguments of `fullsend steer URL TEXT`.
type steerOptions struct{ url, text string }

// newSteerCmd builds `fullsend steer`: the follow-up posted on the item
// as the caller (package post); it reaches a running agent exactly as a
// person's comment would (docs/steering.md).
func newSteerCmd(app *App, runF func(context.Context, *steerOptions) error) *cobra.Command {
	o := &steerOptions{}
	if runF == nil {
		runF = func(ctx context.Context, o *steerOptions) error {
			t, err := post.ParseURL(o.url)
			if err != nil {
				return UserError(err)
			}
			id, err := post.Post(ctx, t, o.text, app.Getenv)
			switch {
			case errors.Is(err, post.ErrNoToken):
				return UserError(err)
			case err != nil:
				return fmt.Errorf("steer %s: %w", o.url, err)
			}
			_, err = fmt.Fprintf(app.Stdout, "posted comment %s on %s\n", id, o.url)
			return err
		}
	}
	return &cobra.Command{
		Use:   "steer URL TEXT",
		Short: "Post a follow-up on an item as you, for the agent running on it (docs/steering.md)",
		Example: `  GITHUB_TOKEN=... fullsend steer https://github.com/acme/platform/issues/7 "/fs-triage also handle the retries"
  JIRA_USER_EMAIL=me@acme.example JIRA_TOKEN=... fullsend steer https://acme.atlassian.net/browse/PROJ-123 "/fs-triage and the exports"`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.url, o.text = args[0], args[1]
			return runF(cmd.Context(), o)
		},
	}
}
