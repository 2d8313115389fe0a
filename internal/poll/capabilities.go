package poll

// Capabilities is what a Driver can do beyond the stages every driver
// has, declared once by the driver (Driver.Capabilities): each field is
// the driver itself as that capability, nil when it has not got it, so
// the compiler checks the declaration and the cycle reads it without
// asking the driver's type.
type Capabilities struct {
	// NoLocks: the driver takes no poll locks (it embeds NoLocks): the
	// cycle selects no N and works on every due item the API budget
	// allows (pollcycle/budget.go).
	NoLocks Lockless
	// Clock stamps and judges intents on the tracker's clock.
	Clock TrackerClock
	// Entities is the entity stage (pollcycle/entitystage.go).
	Entities EntityResolver
	// Scheduled is scheduled discovery's half of the driver: its sweep
	// and its receipts (with Entities, the controller's Schedule).
	Scheduled Scheduled
	// Quarantine keeps the record of the changes given up on.
	Quarantine Quarantiner
	// Cadence and Identity: the driver keeps the cadence of its
	// scheduled evaluations, and runs under a poller id, of its own
	// (restored from its state); nil shares the controller's.
	Cadence  CadenceKeeper
	Identity PollerIdentity
}

// Scheduled is scheduled discovery's capability: the driver sweeps its
// entities (Sweeper) and keeps their receipts (ReceiptKeeper).
type Scheduled interface {
	Sweeper
	ReceiptKeeper
}

// Lockless is the capability of a driver without poll locks: only a
// driver that embeds NoLocks has it.
type Lockless interface{ noLocks() }

func (NoLocks) noLocks() {}
