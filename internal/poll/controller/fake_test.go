package controller_test

import (
	"github.com/fullsend-dev/fullsend/internal/poll"
	"github.com/fullsend-dev/fullsend/internal/poll/pollfake"
)

// The fakes of package pollfake, by the names these tests use.
type (
	fakeDriver = pollfake.Driver
	fakeOut    = pollfake.Out
)

func item(id string, texts ...string) *poll.Item { return pollfake.Item(id, texts...) }
