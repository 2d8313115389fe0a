package trackerclock

import (
	"time"
)

// ClockError bounds how far two processes' estimates of the tracker's
// clock may differ: each known estimate is within MaxError of
// the truth (answers too slow to keep it so are not used). A judgement
// that must agree with another process's judgement of the same lock or
// intent allows for it.
const ClockError = 2 * MaxError

// Ahead reports whether t, a time some process wrote on the tracker's
// clock, lies further ahead of now than two processes' estimates of that
// clock may differ (ClockError): no process wrote it so. Such a time is
// not believed wherever it would hold work back until it comes (an
// intent, a try's time, the discovery cursor).
func Ahead(t, now time.Time) bool { return t.After(now.Add(ClockError)) }
