package jsonout

import (
	"github.com/fullsend-dev/fullsend/internal/config"
	"github.com/fullsend-dev/fullsend/internal/output"
)

// FromConfig returns the plan printer called name (drivername.JSON or
// drivername.GHAMatrix) writing to env.Stdout.
func FromConfig(name string, env output.Env) (*Driver, error) {
	d, err := New(name, env.Stdout)
	if err != nil {
		return nil, config.Invalid(err)
	}
	return d, nil
}
