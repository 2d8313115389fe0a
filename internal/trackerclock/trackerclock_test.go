package trackerclock_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/fullsend-dev/fullsend/internal/fakeclock"
	"github.com/fullsend-dev/fullsend/internal/trackerclock"
)

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func date(t time.Time) string { return t.UTC().Format(http.TimeFormat) }

// obs is one answer: the host times around it and the service's clock
// when it stamped the Date.
type obs struct {
	sent, received time.Duration // host times, from t0
	server         time.Time     // service clock at the Date stamp
	raw            string        // Date header value, when not from server
}

func TestEstimate(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name   string
		obs    []obs
		used   []bool
		lo, hi time.Duration
		offset time.Duration
	}{
		{name: "clocks agree: the host's clock is kept",
			obs:  []obs{{sent: 300 * ms, received: 340 * ms, server: at(320 * ms)}},
			used: []bool{true}, lo: -340 * ms, hi: 700 * ms, offset: 0},
		{name: "service an hour ahead: the interval's midpoint",
			obs:  []obs{{sent: 300 * ms, received: 340 * ms, server: at(time.Hour + 320*ms)}},
			used: []bool{true}, lo: time.Hour - 340*ms, hi: time.Hour + 700*ms, offset: time.Hour + 180*ms},
		{name: "service an hour behind",
			obs:  []obs{{sent: 300 * ms, received: 340 * ms, server: at(-time.Hour + 320*ms)}},
			used: []bool{true}, lo: -time.Hour - 340*ms, hi: -time.Hour + 700*ms, offset: -time.Hour + 180*ms},
		{name: "the round trip widens the bound",
			obs:  []obs{{sent: 0, received: time.Second, server: at(time.Hour + 500*ms)}},
			used: []bool{true}, lo: time.Hour - time.Second, hi: time.Hour + time.Second, offset: time.Hour},
		{name: "a round trip over the bound is ignored",
			obs:  []obs{{sent: 0, received: time.Second + ms, server: at(time.Hour)}, {sent: 0, received: 4 * time.Second, server: at(time.Hour)}},
			used: []bool{false, false}},
		{name: "the widest interval centred on zero: the host's clock is kept",
			obs:  []obs{{sent: 0, received: time.Second, server: at(0)}}, // offset in [-1s, 1s]
			used: []bool{true}, lo: -time.Second, hi: time.Second, offset: 0},
		{name: "an interval holding zero off-centre: the host's clock is kept while within MaxError of all of it",
			obs:  []obs{{sent: 400 * ms, received: 800 * ms, server: at(999 * ms)}}, // offset in [-800ms, 600ms]
			used: []bool{true}, lo: -800 * ms, hi: 600 * ms, offset: 0},
		{name: "an interval holding zero at one end: moved to within MaxError of all of it",
			obs:  []obs{{sent: 0, received: time.Second, server: at(1999 * ms)}}, // offset in [0, 2s]
			used: []bool{true}, lo: 0, hi: 2 * time.Second, offset: time.Second},
		{name: "answers on different fractions of a second narrow it below the Date's second",
			obs: []obs{
				{sent: 100 * ms, received: 110 * ms, server: at(time.Hour + 105*ms)}, // offset in [1h-110ms, 1h+900ms]
				{sent: 800 * ms, received: 810 * ms, server: at(time.Hour + 805*ms)}, // offset in [1h-810ms, 1h+200ms]
			},
			// the kept bound widened by 140 µs (200 ppm of the 700 ms passed)
			used: []bool{true, true}, lo: time.Hour - 110*ms - 140*time.Microsecond, hi: time.Hour + 200*ms, offset: time.Hour + 45*ms - 70*time.Microsecond},
		{name: "one outlier (a proxy's own Date) does not move it",
			obs: []obs{
				{sent: 0, received: 10 * ms, server: at(time.Hour)},     // [1h-10ms, 1h+1s]
				{sent: 20 * ms, received: 30 * ms, server: at(20 * ms)}, // [-30ms, 980ms]: held
			},
			used: []bool{true, true}, lo: time.Hour - 10*ms, hi: time.Hour + time.Second, offset: time.Hour + 495*ms},
		{name: "a stepped clock replaces the estimate at its second answer",
			obs: []obs{
				{sent: 0, received: 10 * ms, server: at(time.Hour)},
				{sent: 20 * ms, received: 30 * ms, server: at(20 * ms)}, // [-30ms, 980ms]
				{sent: 40 * ms, received: 50 * ms, server: at(40 * ms)}, // [-50ms, 960ms] meets it
			},
			// the held interval widened by 4 µs (200 ppm of the 20 ms passed)
			used: []bool{true, true, true}, lo: -30*ms - 4*time.Microsecond, hi: 960 * ms, offset: 0},
		{name: "an answer that agrees drops the held outlier",
			obs: []obs{
				{sent: 0, received: 10 * ms, server: at(time.Hour)},
				{sent: 20 * ms, received: 30 * ms, server: at(20 * ms)},           // held
				{sent: 40 * ms, received: 50 * ms, server: at(time.Hour + 40*ms)}, // agrees: the held one is dropped
				{sent: 60 * ms, received: 70 * ms, server: at(60 * ms)},           // held again, not confirming
			},
			// the kept bound widened by 8 µs (200 ppm of the 40 ms passed)
			used: []bool{true, true, true, true}, lo: time.Hour - 10*ms - 8*time.Microsecond, hi: time.Hour + 960*ms,
			offset: time.Hour + 475*ms - 4*time.Microsecond},
		{name: "the kept bound widens with the drift since it was made",
			obs: []obs{
				{sent: 0, received: 0, server: at(time.Hour)}, // [1h, 1h+1s]
				{sent: 10000 * time.Second, received: 10000 * time.Second, server: at(10000*time.Second + time.Hour + 2*time.Second)},
			},
			// the kept [1h, 1h+1s] widened by 2 s (200 ppm of 10 000 s) meets [1h+2s, 1h+3s]
			used: []bool{true, true}, lo: time.Hour + 2*time.Second, hi: time.Hour + 3*time.Second, offset: time.Hour + 2500*ms},
		{name: "no Date, or one that does not parse, is ignored",
			obs:  []obs{{raw: "-"}, {raw: "yesterday"}},
			used: []bool{false, false}},
		{name: "a negative round trip is ignored",
			obs:  []obs{{sent: time.Second, received: 0, server: at(0)}},
			used: []bool{false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := fakeclock.New(t0)
			c := trackerclock.New(host.Now)
			for i, o := range tt.obs {
				d := date(o.server)
				switch o.raw {
				case "-":
					d = ""
				case "":
				default:
					d = o.raw
				}
				if got := c.Observe(at(o.sent), at(o.received), d); got != tt.used[i] {
					t.Fatalf("observation %d used = %v, want %v", i, got, tt.used[i])
				}
			}
			lo, hi, known := c.Bounds()
			want := false
			for _, u := range tt.used {
				want = want || u
			}
			if known != want {
				t.Fatalf("known = %v, want %v", known, want)
			}
			if known && (lo != tt.lo || hi != tt.hi) {
				t.Errorf("bounds = [%v, %v], want [%v, %v]", lo, hi, tt.lo, tt.hi)
			}
			if got := c.Offset(); got != tt.offset {
				t.Errorf("offset = %v, want %v", got, tt.offset)
			}
			host.Set(at(5 * time.Second))
			if got, want := c.Now(), at(5*time.Second).Add(tt.offset); !got.Equal(want) {
				t.Errorf("Now = %v, want %v", got, want)
			}
		})
	}
}

// TestEstimateError: whatever the service's offset, fraction of a second
// and round trip, the service's true time lies within the interval, and
// the time used is off by at most MaxError, or the answer was not used
// (its round trip over MaxRoundTrip).
func TestEstimateError(t *testing.T) {
	for _, skew := range []time.Duration{-time.Hour, -20 * time.Minute, -1500 * time.Millisecond, -300 * time.Millisecond, 0,
		700 * time.Millisecond, time.Hour} {
		for _, frac := range []time.Duration{0, time.Millisecond, 499 * time.Millisecond, 999 * time.Millisecond} {
			for _, rtt := range []time.Duration{0, 40 * time.Millisecond, 600 * time.Millisecond, time.Second, 3 * time.Second} {
				for _, stamp := range []time.Duration{0, rtt / 3, rtt} { // where in the round trip the service stamped its Date
					host := fakeclock.New(t0.Add(frac))
					c := trackerclock.New(host.Now)
					sent := host.Now()
					received := host.Advance(rtt)
					used := c.Observe(sent, received, date(sent.Add(stamp).Add(skew)))
					if used != (rtt <= trackerclock.MaxRoundTrip) {
						t.Fatalf("skew %v frac %v rtt %v: used = %v", skew, frac, rtt, used)
					}
					if !used {
						continue
					}
					lo, hi, _ := c.Bounds()
					if skew < lo || skew > hi {
						t.Errorf("skew %v frac %v rtt %v: true offset outside [%v, %v]", skew, frac, rtt, lo, hi)
					}
					if e := (c.Offset() - skew).Abs(); e > trackerclock.MaxError {
						t.Errorf("skew %v frac %v rtt %v stamp %v: error %v over MaxError", skew, frac, rtt, stamp, e)
					}
				}
			}
		}
	}
}

func TestTransport(t *testing.T) {
	host := fakeclock.New(t0)
	service := func() time.Time { return host.Now().Add(time.Hour) }
	cached := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if cached {
			w.Header().Set("Age", "30")
			w.Header().Set("Date", date(service().Add(-time.Hour)))
			return
		}
		w.Header().Set("Date", date(service()))
	}))
	defer srv.Close()
	c := trackerclock.New(host.Now)
	get := getter(t, c, srv.URL)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("before any answer Now = %v, want the host's %v", got, t0)
	}
	get()
	// Host and service stand on a whole second: the offset is in
	// [1h, 1h+1s], the estimate its midpoint.
	if got := c.Offset(); got != time.Hour+500*time.Millisecond {
		t.Fatalf("offset = %v, want 1h0m0.5s", got)
	}
	cached = true
	get()
	if got := c.Offset(); got != time.Hour+500*time.Millisecond {
		t.Errorf("offset after a cached answer = %v, want it unchanged (1h0m0.5s)", got)
	}
	var nilClock *trackerclock.Clock
	if d := time.Since(nilClock.Now()).Abs(); d > time.Minute || nilClock.Offset() != 0 || nilClock.Known() {
		t.Errorf("a nil clock is %v off the host's", d)
	}
}

// getter is a GET of url through c's transport, failing t on an error.
func getter(t *testing.T, c *trackerclock.Clock, url string) func() {
	client := &http.Client{Transport: c.Transport(nil)}
	return func() {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
}

// TestOutlierNeedsConfirmation: an answer stamped by something else (a
// proxy's own error page, its Date an hour off and no Age) does not move
// the clock; a second consistent one does, as a stepped clock must be
// followed.
func TestOutlierNeedsConfirmation(t *testing.T) {
	host := fakeclock.New(t0)
	proxy := 0 // answers left to stamp with the proxy's clock
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if proxy == 0 {
			w.Header().Set("Date", date(host.Now().Add(time.Hour))) // the service's clock
			return
		}
		proxy--
		w.Header().Set("Date", date(host.Now())) // the proxy's: the host's
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	c := trackerclock.New(host.Now)
	fetch := getter(t, c, srv.URL)
	get := func() { fetch(); host.Advance(100 * time.Millisecond) }
	get()
	want := c.Now().Sub(host.Now())
	proxy = 1
	get()
	if got := c.Now().Sub(host.Now()); got != want {
		t.Fatalf("after one proxy answer the offset is %v, want it unchanged (%v)", got, want)
	}
	get() // the service again
	proxy = 1
	get()
	if got := c.Now().Sub(host.Now()); (got - time.Hour).Abs() > trackerclock.MaxError {
		t.Fatalf("after a service answer and another proxy answer the offset is %v, want the service's (1h)", got)
	}
	proxy = 2
	get()
	get()
	if got := c.Now().Sub(host.Now()); got.Abs() > trackerclock.MaxError {
		t.Fatalf("after two consistent answers an hour apart from the estimate, the offset is %v, want it followed (about 0)", got)
	}
}

// FuzzObserve: any Date header value and round trip either is ignored or
// gives an interval no wider than the round trip plus the Date's second,
// containing the offset the header states.
func FuzzObserve(f *testing.F) {
	f.Add("Fri, 01 May 2026 11:00:00 GMT", int64(40e6))
	f.Add("Friday, 01-May-26 11:00:00 GMT", int64(0))
	f.Add("Fri May  1 11:00:00 2026", int64(9e9))
	f.Add("", int64(1))
	f.Add("Fri, 01 May 2026 25:61:61 GMT", int64(-5))
	f.Fuzz(func(t *testing.T, date string, rttNs int64) {
		c := trackerclock.New(func() time.Time { return t0 })
		rtt := time.Duration(rttNs)
		if !c.Observe(t0, t0.Add(rtt), date) {
			if c.Known() || c.Offset() != 0 {
				t.Fatalf("ignored %q but the clock changed", date)
			}
			return
		}
		lo, hi, known := c.Bounds()
		if !known || lo > hi || hi-lo != rtt+trackerclock.DateResolution {
			t.Fatalf("%q rtt %v: bounds [%v, %v] known %v", date, rtt, lo, hi, known)
		}
		if off := c.Offset(); off < lo || off > hi {
			t.Fatalf("%q: offset %v outside [%v, %v]", date, off, lo, hi)
		}
	})
}

// FuzzObserveSeries: whatever answers come, in whatever order, the kept
// interval stays an interval, no wider than one answer's, and the offset
// in use lies within it and within MaxError of all of it.
func FuzzObserveSeries(f *testing.F) {
	f.Add("Fri, 01 May 2026 11:00:00 GMT", "Fri, 01 May 2026 10:00:00 GMT", "Fri, 01 May 2026 10:00:00 GMT", int64(40e6))
	f.Add("Fri, 01 May 2026 10:00:00 GMT", "Fri, 01 May 2026 10:00:01 GMT", "Mon, 01 May 2006 10:00:00 GMT", int64(999e6))
	f.Fuzz(func(t *testing.T, d1, d2, d3 string, rttNs int64) {
		host := fakeclock.New(t0)
		c := trackerclock.New(host.Now)
		rtt := time.Duration(rttNs)
		for _, d := range []string{d1, d2, d3} {
			sent := host.Now()
			c.Observe(sent, sent.Add(rtt), d)
			host.Advance(time.Second)
		}
		lo, hi, known := c.Bounds()
		if !known {
			return
		}
		if lo > hi || hi-lo > trackerclock.MaxRoundTrip+trackerclock.DateResolution {
			t.Fatalf("bounds [%v, %v]", lo, hi)
		}
		if off := c.Offset(); off < lo || off > hi || off-lo > trackerclock.MaxError || hi-off > trackerclock.MaxError {
			t.Fatalf("offset %v for [%v, %v]", off, lo, hi)
		}
	})
}
