package poll

import "context"

type dryRunKey struct{}

// WithDryRun marks ctx as a dry run's (Options.DryRun); Run does it for
// the drivers it calls.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// IsDryRun reports whether ctx is a dry run's: a driver then writes
// nothing anywhere, not even state of its own such as a shared discovery
// cursor.
func IsDryRun(ctx context.Context) bool {
	v, _ := ctx.Value(dryRunKey{}).(bool)
	return v
}
