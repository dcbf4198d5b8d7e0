package ogasched

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// TestRecorderKeepsArrivalsAcrossSlots: every arrival lands in exactly one
// finished slot, also when more slots end than the queue holds (the oldest
// are merged, not dropped).
func TestRecorderKeepsArrivalsAcrossSlots(t *testing.T) {
	r := newRecorder(1)
	total := 0
	for s := range maxPendingSlots + 10 {
		for i := range s%3 + 1 {
			r.arrive(types.UID(fmt.Sprintf("%d-%d", s, i)), "k", []float64{1}, float64(s)+0.5)
			total++
		}
	}
	r.tick(1e6)
	slots, _ := r.take()
	if len(slots) != maxPendingSlots {
		t.Errorf("%d pending slots, want the bound %d", len(slots), maxPendingSlots)
	}
	got := 0.0
	for _, s := range slots {
		got += s.counts["k"]
	}
	if int(got) != total {
		t.Errorf("%v arrivals in finished slots, want %d", got, total)
	}
}

// TestRecorderSeenIsFIFO: a pod retried is counted once; past maxSeen
// entries only the oldest pods are forgotten (the old set cleared itself
// and counted every pending pod again).
func TestRecorderSeenIsFIFO(t *testing.T) {
	r := newRecorder(1e9)
	for i := range maxSeen + 10 {
		r.arrive(types.UID(fmt.Sprint(i)), "k", []float64{1}, 1)
	}
	// Retry the newest half: none counted again.
	for i := maxSeen / 2; i < maxSeen+10; i++ {
		r.arrive(types.UID(fmt.Sprint(i)), "k", []float64{1}, 1)
	}
	if got, want := r.cur.counts["k"], float64(maxSeen+10); got != want {
		t.Errorf("counted %v arrivals, want %v", got, want)
	}
	// The 10 oldest were evicted: a retry counts them again.
	for i := range 10 {
		r.arrive(types.UID(fmt.Sprint(i)), "k", []float64{1}, 1)
	}
	if got, want := r.cur.counts["k"], float64(maxSeen+10+10); got != want {
		t.Errorf("after retrying the 10 oldest: counted %v, want %v", got, want)
	}
	if len(r.seen) > maxSeen {
		t.Errorf("seen holds %d pods, bound %d", len(r.seen), maxSeen)
	}
}

// TestPortForBuckets: an unknown shape gets the nearest known port that
// asks for the same resource types.
func TestPortForBuckets(t *testing.T) {
	s := &snapshot{
		keys:   map[string]int{"cpu-small": 0, "cpu-big": 1, "gpu": 2},
		demand: [][]float64{{1, 2, 0}, {16, 64, 0}, {8, 32, 1}},
		scale:  []float64{64, 256, 8},
	}
	for _, c := range []struct {
		key    string
		demand []float64
		want   int
		bucket bool
	}{
		{"gpu", []float64{8, 32, 1}, 2, false},
		{"x", []float64{2, 4, 0}, 0, true},
		{"y", []float64{12, 60, 0}, 1, true},
		{"z", []float64{1, 2, 4}, 2, true}, // the only GPU port, though cpu-small is nearer in CPU and memory
		{"w", []float64{0, 0, 0}, 0, true}, // no port with an empty support: nearest overall
	} {
		l, b := s.portFor(c.key, c.demand)
		if l != c.want || b != c.bucket {
			t.Errorf("portFor(%s, %v) = %d, %v; want %d, %v", c.key, c.demand, l, b, c.want, c.bucket)
		}
	}
	if l, _ := (&snapshot{}).portFor("a", []float64{1}); l != -1 {
		t.Errorf("no ports: %d, want -1", l)
	}
}
