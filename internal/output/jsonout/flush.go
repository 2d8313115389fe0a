package jsonout

import "context"

// Flush writes the plan document now (poll.Flusher): the poll cycle calls
// it before checkpointing, so that a poller killed after the checkpoint
// has printed its plan already. Close then writes nothing more.
func (d *Driver) Flush(ctx context.Context) error { return d.Close(ctx) }
