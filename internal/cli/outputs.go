package cli

import "github.com/fullsend-dev/fullsend/internal/output"

// outputEnv is what output drivers built for app write to and read from.
func (app *App) outputEnv() output.Env {
	return output.Env{Getenv: app.Getenv, Stdout: app.Stdout, Stderr: app.Stderr, Log: app.Log,
		LogFormat: app.logFormat, LogLevel: app.LogLevel}
}
