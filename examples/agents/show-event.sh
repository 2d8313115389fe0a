#!/bin/sh
# Shared body of the example agents: prints what fullsend handed the agent
# (docs/runner.md) and exits 0. A real agent reads the event, works on the
# subject and reports. Usage: show-event.sh NAME [ARGS...]
set -eu
name=$1
shift
echo "$name agent: harness=${FULLSEND_HARNESS:-} args=$*"
echo "  work item: ${FULLSEND_WORK_ITEM_SOURCE:-} ${FULLSEND_WORK_ITEM_KEY:-} ${FULLSEND_WORK_ITEM_URL:-}"
echo "  scope: ${FULLSEND_SERIALIZATION_KEY:-}"
echo "  poll lock: ${FULLSEND_POLL_LOCK_ID:-none}"
echo "  event (${FULLSEND_EVENT_FILE:-no event file}):"
if [ -n "${FULLSEND_EVENT_FILE:-}" ] && [ -r "$FULLSEND_EVENT_FILE" ]; then
	sed 's/^/    /' "$FULLSEND_EVENT_FILE"
	echo
fi
