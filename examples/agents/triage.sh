#!/bin/sh
# Example triage agent (see show-event.sh).
exec "$(dirname "$0")/show-event.sh" triage "$@"
