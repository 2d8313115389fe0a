package runner

import "context"

func (e steerEnv) jira(ctx context.Context) (steerCheck, error) { return steerCheck{}, nil }
