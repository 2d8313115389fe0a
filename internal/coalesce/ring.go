package coalesce

// ring is a growable FIFO of keys backed by a circular slice. A key is in
// the ring at most once (the caller tracks membership), so its length is
// bounded by the number of keys with work. Not safe for concurrent use.
type ring[K any] struct {
	buf  []K
	head int // index of the oldest element
	n    int // number of elements
}

func (r *ring[K]) len() int { return r.n }

// push appends k at the back, doubling the buffer when full.
func (r *ring[K]) push(k K) {
	if r.n == len(r.buf) {
		r.resize(max(16, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)%len(r.buf)] = k
	r.n++
}

// pop removes and returns the front element.
func (r *ring[K]) pop() (K, bool) {
	var zero K
	if r.n == 0 {
		return zero, false
	}
	k := r.buf[r.head]
	r.buf[r.head] = zero // let the key be collected
	r.head = (r.head + 1) % len(r.buf)
	r.n--
	return k, true
}

// shrink halves the buffer while it is at most a quarter full, so memory
// follows the number of waiting keys down after a burst.
func (r *ring[K]) shrink() {
	for len(r.buf) > 16 && r.n <= len(r.buf)/4 {
		r.resize(len(r.buf) / 2)
	}
}

func (r *ring[K]) resize(size int) {
	nb := make([]K, size)
	for i := 0; i < r.n; i++ {
		nb[i] = r.buf[(r.head+i)%len(r.buf)]
	}
	r.buf, r.head = nb, 0
}
