package config

import (
	"errors"
	"github.com/fullsend-dev/fullsend/internal/strictyaml"
)

// InvalidError marks an error caused by what the user gave, the
// configuration, the environment it names or a command-line option, as
// opposed to a failure at run time. Commands exit with code 2 for it.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// Invalid marks err as the user's input error; nil stays nil.
func Invalid(err error) error {
	if err == nil {
		return nil
	}
	return &InvalidError{Err: err}
}

// IsInvalid reports whether err is, or wraps, an InvalidError or the
// problems of a configuration file (Errors).
func IsInvalid(err error) bool {
	var ie *InvalidError
	var es strictyaml.Errors
	return errors.As(err, &ie) || errors.As(err, &es)
}
