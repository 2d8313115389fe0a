#!/bin/sh
# Example code agent (see show-event.sh).
exec "$(dirname "$0")/show-event.sh" code "$@"
