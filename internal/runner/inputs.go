package runner

import (
	"encoding/base64"
	"io"
	"os"
	"strings"

	"github.com/fullsend-dev/fullsend/internal/entity"
	"github.com/fullsend-dev/fullsend/internal/gitlab"
	"github.com/fullsend-dev/fullsend/internal/plan"
)

// MaxEventBytes bounds the size of an event document read from a file,
// stdin or the environment.
const MaxEventBytes = 1 << 20

// Environment variables `fullsend run` reads its inputs from when the
// matching flag is absent: the GitLab pipeline variables (package gitlab
// owns their names) and the dispatch inputs as environment variables
// (plan.EnvVar).
const (
	EnvAgent          = gitlab.VarAgent            // harness name
	EnvEventBase64    = gitlab.VarEvent            // base64 NormalizedEvent
	EnvPollLockID     = gitlab.VarPollLockID       // the split form of poll_lock
	EnvPollLockDriver = gitlab.VarPollLockDriver   // the split form of poll_lock
	EnvPollLockProp   = gitlab.VarPollLockProperty // the split form of poll_lock
	// EnvEntityBase64 is the entity's pipeline variable (base64 JSON),
	// absent for event-only runs.
	EnvEntityBase64 = gitlab.VarEntity
)

var (
	envNormalizedEvent = plan.EnvVar(plan.InNormalizedEvent)
	envPollLock        = plan.EnvVar(plan.InPollLock)
	// EnvNormalizedEntity carries the normalized_entity dispatch input
	// (JSON), absent for event-only runs.
	EnvNormalizedEntity = plan.EnvVar(plan.InNormalizedEntity)
)

// Flags are the command-line values of `fullsend run`; empty means "not
// given". PollLockSet distinguishes `--poll-lock ""` (explicitly none) from
// an absent flag.
type Flags struct {
	Harness     string
	EventFile   string // path, or "-" for stdin
	PollLock    string
	PollLockSet bool
	// MetricsTextfile is where the run's isolation counter is written in
	// the Prometheus text format (default $FULLSEND_METRICS_TEXTFILE).
	MetricsTextfile string
}

// Inputs are the resolved inputs of one run, before the event is decoded.
type Inputs struct {
	Harness   string
	EventJSON []byte
	EventFrom string         // where the event came from, for messages
	PollLock  *plan.PollLock // nil outside polling
	// EntityJSON is the entity of a run of an entity-source harness (nil
	// for event-only runs); EntityFrom names where it came from.
	EntityJSON []byte
	EntityFrom string
}

// Resolve finds the harness name, the event document and the poll-lock
// reference from flags first, then from the environment the workflows
// provide (flag > environment):
//
//   - harness: --harness, else $FULLSEND_AGENT (the `agent` dispatch input);
//   - event: --event-file (a path or "-" for stdin), else
//     $FULLSEND_NORMALIZED_EVENT (JSON), else $FULLSEND_EVENT (base64 JSON);
//   - poll lock: --poll-lock, else $FULLSEND_POLL_LOCK (JSON), else the split
//     form $FULLSEND_POLL_LOCK_ID/_DRIVER/_PROPERTY;
//   - entity (runs of entity-source harnesses only): $FULLSEND_NORMALIZED_ENTITY
//     (JSON), else $FULLSEND_ENTITY (base64 JSON); none for event-only runs.
//
// Every failure is an *InputError naming the source.
func Resolve(f Flags, getenv func(string) string, stdin io.Reader) (Inputs, error) {
	var in Inputs
	in.Harness = strings.TrimSpace(f.Harness)
	if in.Harness == "" {
		in.Harness = strings.TrimSpace(getenv(EnvAgent))
	}
	if in.Harness == "" {
		return Inputs{}, inputErr("no harness: pass --harness NAME or set %s", EnvAgent)
	}
	var err error
	in.EventJSON, in.EventFrom, err = readEvent(f.EventFile, getenv, stdin)
	if err != nil {
		return Inputs{}, err
	}
	in.PollLock, err = ResolvePollLock(f, getenv)
	if err != nil {
		return Inputs{}, err
	}
	in.EntityJSON, in.EntityFrom, err = readEntity(getenv)
	if err != nil {
		return Inputs{}, err
	}
	return in, nil
}

// readEntity reads the run's entity from the environment: nil when
// neither variable is set (an event-only run).
func readEntity(getenv func(string) string) ([]byte, string, error) {
	if s := getenv(EnvNormalizedEntity); strings.TrimSpace(s) != "" {
		if len(s) > entity.DefaultMaxBytes {
			return nil, EnvNormalizedEntity, inputErr("%s: entity larger than %d bytes", EnvNormalizedEntity, entity.DefaultMaxBytes)
		}
		return []byte(s), EnvNormalizedEntity, nil
	}
	s := strings.Join(strings.Fields(getenv(EnvEntityBase64)), "")
	if s == "" {
		return nil, "", nil
	}
	if base64.StdEncoding.DecodedLen(len(s)) > entity.DefaultMaxBytes {
		return nil, EnvEntityBase64, inputErr("%s: entity larger than %d bytes", EnvEntityBase64, entity.DefaultMaxBytes)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		var err2 error
		if b, err2 = base64.RawStdEncoding.DecodeString(s); err2 != nil {
			return nil, EnvEntityBase64, inputErr("%s: not base64: %v", EnvEntityBase64, err)
		}
	}
	return b, EnvEntityBase64, nil
}

func readEvent(file string, getenv func(string) string, stdin io.Reader) ([]byte, string, error) {
	switch {
	case file == "-":
		b, err := readBounded(stdin, "stdin")
		return b, "stdin", err
	case file != "":
		fh, err := os.Open(file)
		if err != nil {
			return nil, file, inputErr("event file: %v", err)
		}
		defer fh.Close()
		b, err := readBounded(fh, file)
		return b, file, err
	}
	if s := getenv(envNormalizedEvent); strings.TrimSpace(s) != "" {
		if len(s) > MaxEventBytes {
			return nil, envNormalizedEvent, inputErr("%s: event larger than %d bytes", envNormalizedEvent, MaxEventBytes)
		}
		return []byte(s), envNormalizedEvent, nil
	}
	if s := strings.TrimSpace(getenv(EnvEventBase64)); s != "" {
		b, err := DecodeBase64Event(s)
		return b, EnvEventBase64, err
	}
	return nil, "", inputErr("no event: pass --event-file F|- or set %s (JSON) or %s (base64 JSON)", envNormalizedEvent, EnvEventBase64)
}

// DecodeBase64Event decodes the $FULLSEND_EVENT value: standard base64,
// padded or not, surrounding whitespace and line breaks ignored.
func DecodeBase64Event(s string) ([]byte, error) {
	s = strings.Join(strings.Fields(s), "")
	if base64.StdEncoding.DecodedLen(len(s)) > MaxEventBytes {
		return nil, inputErr("%s: event larger than %d bytes", EnvEventBase64, MaxEventBytes)
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		var err2 error
		if b, err2 = base64.RawStdEncoding.DecodeString(s); err2 != nil {
			return nil, inputErr("%s: not base64: %v", EnvEventBase64, err)
		}
	}
	return b, nil
}

func readBounded(r io.Reader, name string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxEventBytes+1))
	if err != nil {
		return nil, inputErr("event %s: %v", name, err)
	}
	if len(b) > MaxEventBytes {
		return nil, inputErr("event %s: larger than %d bytes", name, MaxEventBytes)
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil, inputErr("event %s: empty", name)
	}
	return b, nil
}

// ResolvePollLock finds the poll-lock reference alone (as Resolve does; nil
// outside polling). --refresh-only needs nothing else.
func ResolvePollLock(f Flags, getenv func(string) string) (*plan.PollLock, error) {
	if f.PollLockSet {
		return wrapSource("--poll-lock", f.PollLock)
	}
	if s := getenv(envPollLock); strings.TrimSpace(s) != "" {
		return wrapSource(envPollLock, s)
	}
	pl := plan.PollLock{ID: getenv(EnvPollLockID), Driver: getenv(EnvPollLockDriver), Property: getenv(EnvPollLockProp)}
	if pl == (plan.PollLock{}) {
		return nil, nil
	}
	if err := CheckPollLock(&pl); err != nil {
		return nil, inputErr("%s/_DRIVER/_PROPERTY: %v", EnvPollLockID, err)
	}
	return &pl, nil
}

func wrapSource(src, text string) (*plan.PollLock, error) {
	pl, err := ParsePollLock(text)
	if err != nil {
		return nil, inputErr("%s: %v", src, err)
	}
	return pl, nil
}
