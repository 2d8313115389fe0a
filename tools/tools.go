//go:build tools

// Package tools pins modules that the project's packages import, so that
// `go mod tidy` keeps them while packages are being added.
package tools

import (
	_ "cel.dev/cel-go/cel"
	_ "github.com/getkin/kin-openapi/openapi3"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/google/go-github/v90/github"
	_ "github.com/google/uuid"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/spf13/cobra"
	_ "gitlab.com/gitlab-org/api/client-go"
	_ "go.uber.org/goleak"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/time/rate"
)
