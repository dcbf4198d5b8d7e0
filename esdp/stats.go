package esdp

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/strictjson"
)

// Stats holds the statistics (7)-(8) of the semi-bandit feedback: the
// number of plays n_e and the sum of the observed rewards of every edge.
// Policies of this family (and the baselines) keep one; its fields are
// unexported so that a caller cannot break their invariants
// (0 <= sum_e <= n_e): read them with Count, Sum and Mean, add feedback
// with Observe. The zero value has no edge.
//
// Stats encodes as the JSON object {"count":[...],"sum":[...]}; decoding
// checks the invariants, so a decoded Stats is always safe to use.
type Stats struct {
	count []int
	sum   []float64
}

// NewStats returns zero statistics for E >= 0 edges; a negative E or one
// above MaxEdges gives empty statistics.
func NewStats(E int) Stats {
	if E < 0 || E > MaxEdges {
		E = 0
	}
	return Stats{count: make([]int, E), sum: make([]float64, E)}
}

// Len returns the number of edges.
func (st Stats) Len() int { return len(st.count) }

// Count returns n_e of (7). It panics if e is not an edge (a programmer
// error).
func (st Stats) Count(e int) int { return st.count[e] }

// Sum returns the sum of the observed rewards of edge e.
func (st Stats) Sum(e int) float64 { return st.sum[e] }

// Mean returns the empirical mean v^_e of (8) (0 for an unplayed edge).
func (st Stats) Mean(e int) float64 {
	if st.count[e] == 0 {
		return 0
	}
	return st.sum[e] / float64(st.count[e])
}

// MaxCount is where n_e saturates: an edge played MaxCount = 2^53 times
// keeps its statistics (and its mean) unchanged by later feedback. Beyond
// 2^53 a float64 sum of rewards no longer moves by every reward, so the
// mean is as good as final; a fixed ceiling also makes every saved count
// restorable and leaves room for every later slot.
const MaxCount = 1 << 53

// Observe adds the rewards of the chosen edges (an edge at MaxCount plays
// is left unchanged). It returns an error, and changes nothing, if a
// length is wrong or a chosen edge's reward is not in [0,1].
func (st *Stats) Observe(fb Feedback) error {
	count, sum := st.count, st.sum
	E := len(count)
	if len(fb.Chosen) != E || len(fb.Reward) != E {
		return fmt.Errorf("%w: feedback lengths %d, %d, want |E| = %d", ErrDimension, len(fb.Chosen), len(fb.Reward), E)
	}
	for e, on := range fb.Chosen {
		if !on {
			continue
		}
		if !(fb.Reward[e] >= 0 && fb.Reward[e] <= 1) {
			return fmt.Errorf("%w: reward of edge %d = %v, want [0,1]", ErrValue, e, fb.Reward[e])
		}
	}
	for e, on := range fb.Chosen {
		if on && count[e] < MaxCount {
			count[e]++
			sum[e] += fb.Reward[e]
		}
	}
	return nil
}

// Clone returns a deep copy of st.
func (st Stats) Clone() Stats {
	return Stats{count: append([]int(nil), st.count...), sum: append([]float64(nil), st.sum...)}
}

type statsJSON struct {
	Count []int     `json:"count"`
	Sum   []float64 `json:"sum"`
}

// MarshalJSON encodes {"count":[...],"sum":[...]}.
func (st Stats) MarshalJSON() ([]byte, error) {
	c, s := st.count, st.sum
	if c == nil {
		c = []int{}
	}
	if s == nil {
		s = []float64{}
	}
	return json.Marshal(statsJSON{Count: c, Sum: s})
}

// UnmarshalJSON decodes what MarshalJSON wrote and checks it: both keys
// present, each once and spelled exactly, no other key, equal lengths (at
// most MaxEdges), 0 <= n_e <= MaxCount, 0 <= sum_e <= n_e. On error st is
// unchanged.
func (st *Stats) UnmarshalJSON(b []byte) error {
	var v statsJSON
	if err := strictjson.Complete(b, &v); err != nil {
		return fmt.Errorf("%w: stats: %w", ErrValue, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: stats: %w", ErrValue, err)
	}
	if err := checkStats(v.Count, v.Sum); err != nil {
		return err
	}
	st.count, st.sum = v.Count, v.Sum
	return nil
}

func checkStats(count []int, sum []float64) error {
	if len(count) != len(sum) || len(count) > MaxEdges {
		return fmt.Errorf("%w: stats: len(count) = %d, len(sum) = %d, want equal and <= MaxEdges = %d", ErrDimension, len(count), len(sum), MaxEdges)
	}
	for e, n := range count {
		if n < 0 || n > MaxCount {
			return fmt.Errorf("%w: stats: count[%d] = %d, want 0..MaxCount = %d", ErrValue, e, n, MaxCount)
		}
		// Each reward is in [0,1]; the tolerance absorbs rounding of sums.
		if s := sum[e]; !(s >= 0 && s <= float64(n)*(1+1e-9)) {
			return fmt.Errorf("%w: stats: sum[%d] = %v, want [0, count = %d]", ErrValue, e, s, n)
		}
	}
	return nil
}

// Carry returns the statistics of the edges of graph to, carried over from
// st, whose edges are those of graph from: the edge (l', r') of to gets the
// statistics of the edge (ports[l'], servers[r']) of from if that edge
// exists, and zero (unplayed) otherwise. ports[l'] (servers[r']) is the
// index in from of the port l' (server r') of to, or -1 for a new one; a
// nil map is the identity on the indices both graphs have (new indices are
// new vertices). It returns an error wrapping ErrDimension if a map has the
// wrong length, an index out of range or the same old vertex twice.
func (st *Stats) Carry(from, to *bipartite.Graph, ports, servers []int) (Stats, error) {
	if from == nil || to == nil {
		return Stats{}, fmt.Errorf("%w: Carry: nil graph", ErrDimension)
	}
	if from.NumEdges() != len(st.count) {
		return Stats{}, fmt.Errorf("%w: Carry: stats of %d edges, graph from has %d", ErrDimension, len(st.count), from.NumEdges())
	}
	if to.NumEdges() > MaxEdges {
		return Stats{}, fmt.Errorf("%w: Carry: |E| = %d, limit MaxEdges = %d", ErrTooLarge, to.NumEdges(), MaxEdges)
	}
	pm, err := vertexMap("ports", ports, to.NumLeft(), from.NumLeft())
	if err != nil {
		return Stats{}, err
	}
	sm, err := vertexMap("servers", servers, to.NumRight(), from.NumRight())
	if err != nil {
		return Stats{}, err
	}
	out := NewStats(to.NumEdges())
	for e := range out.count {
		ed := to.Edge(e)
		l, r := pm(ed.Left), sm(ed.Right)
		if l < 0 || r < 0 {
			continue
		}
		if old, ok := from.EdgeID(l, r); ok {
			out.count[e], out.sum[e] = st.count[old], st.sum[old]
		}
	}
	return out, nil
}

// vertexMap checks a map from new to old vertex indices and returns it as
// a function (nil: identity where the old index exists, -1 otherwise).
func vertexMap(name string, m []int, nNew, nOld int) (func(int) int, error) {
	if m == nil {
		return func(v int) int {
			if v < nOld {
				return v
			}
			return -1
		}, nil
	}
	if len(m) != nNew {
		return nil, fmt.Errorf("%w: len(%s) = %d, want %d (one entry per vertex of the new cluster)", ErrDimension, name, len(m), nNew)
	}
	seen := make(map[int]bool, len(m))
	for i, v := range m {
		if v < -1 || v >= nOld {
			return nil, fmt.Errorf("%w: %s[%d] = %d, want -1..%d", ErrDimension, name, i, v, nOld-1)
		}
		if v >= 0 && seen[v] {
			return nil, fmt.Errorf("%w: %s[%d] = %d maps a second vertex to old vertex %d", ErrDimension, name, i, v, v)
		}
		seen[v] = true
	}
	return func(v int) int { return m[v] }, nil
}
