package esdp

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
)

// MaxGangChannels bounds the component channels (l, q, r) of a gang model
// (the same bound as MaxEdges: policies keep a few words per channel).
const MaxGangChannels = MaxEdges

// GangChannels numbers the component channels x^l_{(q,r)} of paper 003
// §3.4 of a bipartite.GangModel: one channel per flat component c (job l,
// component q) and server r adjacent to l in the model's graph. The
// channels of component c are the contiguous ids Range(c), in the order
// of the job's edges (increasing server). Per-channel data (values,
// statistics, true means) is stored flat in that order.
//
// A GangChannels is immutable and safe for concurrent use.
type GangChannels struct {
	model  *bipartite.GangModel
	off    []int   // component c owns channels off[c]..off[c+1]-1
	server []int32 // server of each channel
	fits   []bool  // GangModel.Fits of each channel
	comp   []int32 // component of each channel
}

// NewGangChannels numbers the channels of m. A nil m is an error wrapping
// ErrDimension; more than MaxGangChannels channels, ErrTooLarge (checked
// before anything is allocated).
func NewGangChannels(m *bipartite.GangModel) (*GangChannels, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil gang model", ErrDimension)
	}
	g := m.Graph()
	total := 0
	for l := 0; l < m.NumJobs(); l++ {
		lo, hi := m.Components(l)
		n, ok := checked.Mul(hi-lo, g.LeftDegree(l))
		if ok {
			total, ok = checked.Add(total, n)
		}
		if !ok || total > MaxGangChannels {
			return nil, fmt.Errorf("%w: gang channels > %d after job %d, limit MaxGangChannels=%d", ErrTooLarge, MaxGangChannels, l, MaxGangChannels)
		}
	}
	ch := &GangChannels{model: m, off: make([]int, m.NumComponents()+1), server: make([]int32, total), fits: make([]bool, total), comp: make([]int32, total)}
	i := 0
	for c := 0; c < m.NumComponents(); c++ {
		l := m.Job(c)
		lo, hi := g.LeftRange(l)
		for e := lo; e < hi; e++ {
			r := g.Edge(e).Right
			ch.server[i] = int32(r)
			ch.fits[i] = m.Fits(c, r)
			ch.comp[i] = int32(c)
			i++
		}
		ch.off[c+1] = i
	}
	return ch, nil
}

// Model returns the gang model.
func (ch *GangChannels) Model() *bipartite.GangModel { return ch.model }

// Len returns the number of channels.
func (ch *GangChannels) Len() int { return len(ch.server) }

// Range returns the channel ids lo..hi-1 of flat component c. It panics if
// c is out of range.
func (ch *GangChannels) Range(c int) (lo, hi int) { return ch.off[c], ch.off[c+1] }

// Server returns the server of channel i. It panics if i is out of range.
func (ch *GangChannels) Server(i int) int { return int(ch.server[i]) }

// Component returns the flat component of channel i. It panics if i is
// out of range.
func (ch *GangChannels) Component(i int) int { return int(ch.comp[i]) }

// Fits reports whether channel i's component fits its server on its own
// (GangModel.Fits): a channel that does not can never be played. It
// panics if i is out of range.
func (ch *GangChannels) Fits(i int) bool { return ch.fits[i] }

// Channel returns the channel of component c on server r, and false if r
// is not adjacent to c's job or either is out of range.
func (ch *GangChannels) Channel(c, r int) (int, bool) {
	if c < 0 || c >= len(ch.off)-1 || r < 0 {
		return 0, false
	}
	lo, hi := ch.off[c], ch.off[c+1]
	for lo < hi { // binary search: servers increase within a component
		mid := int(uint(lo+hi) >> 1)
		switch s := int(ch.server[mid]); {
		case s == r:
			return mid, true
		case s < r:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}
