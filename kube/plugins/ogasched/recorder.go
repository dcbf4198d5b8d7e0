package ogasched

import (
	"maps"
	"math"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// Bounds of the scheduling path's bookkeeping.
const (
	// maxSeen bounds the set of pods counted as arrivals and not yet bound.
	// Past it the oldest entry is forgotten (first in, first out): only a
	// pod still pending after maxSeen newer arrivals can be counted twice,
	// once more at its next attempt.
	maxSeen = 1 << 16
	// maxPendingSlots bounds the finished slots waiting for the learner;
	// past it the two oldest are merged (their arrivals summed into one
	// step): no arrival is dropped.
	maxPendingSlots = 64
	// maxNewPorts bounds the new port keys waiting for the learner; past
	// it further keys wait for the next slot's arrivals (their pods are
	// bucketed meanwhile).
	maxNewPorts = 256
)

// slotArrivals are the arrivals of one finished slot, by port key, with
// each key's demand.
type slotArrivals struct {
	slot   int64
	counts map[string]float64
	demand map[string][]float64
}

// recorder is the scheduling path's side of the learner: it counts
// arrivals per slot and hands finished slots to the learner goroutine
// through a bounded queue. Its critical sections are map updates.
type recorder struct {
	slotSeconds float64

	mu      sync.Mutex
	slot    int64 // current slot; math.MinInt64 before the first arrival
	cur     slotArrivals
	pending []slotArrivals
	newKeys map[string][]float64
	seen    map[types.UID]struct{}
	ring    []types.UID // insertion order of seen, for FIFO eviction
	head    int

	wake chan struct{} // capacity 1: the learner has work
}

func newRecorder(slotSeconds float64) *recorder {
	return &recorder{
		slotSeconds: slotSeconds,
		slot:        math.MinInt64,
		cur:         slotArrivals{counts: map[string]float64{}, demand: map[string][]float64{}},
		newKeys:     map[string][]float64{},
		seen:        map[types.UID]struct{}{},
		wake:        make(chan struct{}, 1),
	}
}

func (r *recorder) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// slotOf returns the slot of now (seconds).
func (r *recorder) slotOf(now float64) int64 {
	s := math.Floor(now / r.slotSeconds)
	if !(s > math.MinInt64/2 && s < math.MaxInt64/2) {
		return 0
	}
	return int64(s)
}

// advanceLocked closes the current slot when now is past it; r.mu held.
func (r *recorder) advanceLocked(now float64) {
	s := r.slotOf(now)
	if r.slot == math.MinInt64 {
		r.slot = s
		return
	}
	if s <= r.slot {
		return
	}
	if len(r.cur.counts) > 0 {
		if len(r.pending) == maxPendingSlots {
			a, b := r.pending[0], r.pending[1]
			for k, v := range a.counts {
				b.counts[k] += v
				if _, ok := b.demand[k]; !ok {
					b.demand[k] = a.demand[k]
				}
			}
			r.pending = r.pending[1:]
		}
		r.cur.slot = r.slot
		r.pending = append(r.pending, r.cur)
		r.cur = slotArrivals{counts: map[string]float64{}, demand: map[string][]float64{}}
		r.signal()
	}
	r.slot = s
}

// tick closes the current slot when now is past it.
func (r *recorder) tick(now float64) {
	r.mu.Lock()
	r.advanceLocked(now)
	r.mu.Unlock()
}

// arrive counts the pod (once until it is bound) in the slot of now.
func (r *recorder) arrive(uid types.UID, key string, demand []float64, now float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.advanceLocked(now)
	if uid != "" {
		if _, ok := r.seen[uid]; ok {
			return
		}
		if len(r.ring) < maxSeen {
			r.ring = append(r.ring, uid)
		} else {
			delete(r.seen, r.ring[r.head])
			r.ring[r.head] = uid
			r.head = (r.head + 1) % maxSeen
		}
		r.seen[uid] = struct{}{}
	}
	r.cur.counts[key]++
	if _, ok := r.cur.demand[key]; !ok {
		r.cur.demand[key] = demand
	}
}

// forget drops a bound pod from the seen set.
func (r *recorder) forget(uid types.UID) {
	r.mu.Lock()
	delete(r.seen, uid)
	r.mu.Unlock()
}

// requestPort asks the learner to add the port key (a pod of an unknown
// port was seen).
func (r *recorder) requestPort(key string, demand []float64) {
	r.mu.Lock()
	if _, ok := r.newKeys[key]; !ok && len(r.newKeys) < maxNewPorts {
		r.newKeys[key] = demand
		r.signal()
	}
	r.mu.Unlock()
}

// take returns and clears the finished slots and requested ports.
func (r *recorder) take() ([]slotArrivals, map[string][]float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	var k map[string][]float64
	if len(r.newKeys) > 0 {
		k = maps.Clone(r.newKeys)
		clear(r.newKeys)
	}
	return p, k
}
