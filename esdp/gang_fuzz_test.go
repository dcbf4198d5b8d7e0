package esdp

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

// gangKnapsackFromBytes builds a small gang knapsack from fuzz bytes (nil
// if the bytes do not describe a valid model): at most 3 job types of 1-3
// components, 1-3 servers, K 1-2, edges, demands, capacities, minima,
// arrivals and values (some negative) all drawn from b.
func gangKnapsackFromBytes(b []byte) *GangKnapsack {
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		v := int(b[0])
		b = b[1:]
		return v
	}
	L, R, K := 1+next()%3, 1+next()%3, 1+next()%2
	var edges []bipartite.Edge
	for l := 0; l < L; l++ {
		for r := 0; r < R; r++ {
			if next()%4 != 0 {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
			}
		}
	}
	g, err := bipartite.NewGraph(L, R, edges)
	if err != nil {
		return nil
	}
	capv := make([]float64, R*K)
	for i := range capv {
		capv[i] = float64(next() % 4)
	}
	jobs := make([]bipartite.GangJob, L)
	for l := range jobs {
		q := 1 + next()%3
		d := make([]float64, q*K)
		for i := range d {
			d[i] = float64(next() % 3)
		}
		jobs[l] = bipartite.GangJob{Demand: d, Min: next() % (q + 1)}
	}
	m, err := bipartite.NewGangModel(g, K, capv, jobs)
	if err != nil {
		return nil
	}
	ch, err := NewGangChannels(m)
	if err != nil {
		return nil
	}
	p := &GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, L)}
	for l := range p.Arrived {
		p.Arrived[l] = next()%5 != 0
	}
	for i := range p.Value {
		p.Value[i] = float64(next()%21-5) / 10
	}
	return p
}

// FuzzGangOracle checks every method on fuzzed small gang knapsacks:
// feasible placements (GangModel.Check), values equal to brute force for
// GangExact and GangAuto, certified bounds never below the optimum.
func FuzzGangOracle(f *testing.F) {
	f.Add([]byte{2, 2, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 0, 2, 1, 1, 1, 1, 5, 9, 13, 2, 7})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{})
	f.Add([]byte{255, 255, 255, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 2, 2, 2, 2, 2, 2, 1, 0, 0, 0, 20, 20, 20, 20, 20, 20, 20, 20, 20})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := gangKnapsackFromBytes(b)
		if p == nil {
			return
		}
		want := bruteGang(t, p)
		x := make([]int, p.Channels.Model().NumComponents())
		for _, meth := range []GangMethod{GangExact, GangAuto, GangScalable} {
			o := GangOracle{Settings: GangOracleSettings{Method: meth}}
			r, err := o.Solve(x, p)
			require.NoError(t, err)
			got := gangValue(t, p, x)
			require.InDelta(t, got, r.Value, 1e-9)
			require.GreaterOrEqual(t, r.Bound, want-1e-9)
			if meth != GangScalable {
				require.Equal(t, Optimal, r.Status)
				require.InDelta(t, want, got, 1e-9, "%v", meth)
			}
		}
	})
}

// FuzzGangUnmarshal: truncated or altered snapshots give an error wrapping
// ErrSnapshot, never a panic, and a state that restores leaves a policy
// that decides.
func FuzzGangUnmarshal(f *testing.F) {
	g, _ := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}})
	m, err := bipartite.NewGangModel(g, 1, []float64{1, 2}, []bipartite.GangJob{{Demand: []float64{1, 1}}, {Demand: []float64{1, 1, 3}, Min: 1}})
	if err != nil {
		f.Fatal(err)
	}
	p, _ := NewGang(m, GangSettings{})
	arrived := []bool{true, true}
	C := m.NumComponents()
	for s := 0; s < 6; s++ {
		x, _ := p.Decide(s, arrived)
		fb := GangFeedback{Server: append([]int(nil), x...), Reward: make([]float64, C)}
		for c := range fb.Reward {
			fb.Reward[c] = 0.5
		}
		p.Observe(s, fb)
	}
	data, _ := p.MarshalBinary()
	f.Add(data)
	p.Decide(6, arrived)
	data, _ = p.MarshalBinary()
	f.Add(data)
	for _, alt := range [][2]string{{`"count":[`, `"count":[-1,`}, {`"pending":[`, `"pending":[99,`}, {`"last_t":6`, `"last_t":-6`},
		{`"sum":[`, `"sum":[1e308,`}, {`"count":[`, `"count":[1e300,`}, {`"pending":[`, `"pending":[-1,-1,-1,-1,-1,`}} {
		f.Add([]byte(strings.Replace(string(data), alt[0], alt[1], 1)))
	}
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		q, _ := NewGang(m, GangSettings{})
		if err := q.UnmarshalBinary(data); err != nil {
			require.ErrorIs(t, err, ErrSnapshot)
			return
		}
		if q.started && q.lastT >= math.MaxInt-1 {
			return
		}
		t0 := 0
		if q.started {
			t0 = q.lastT + 1
		}
		x, err := q.Decide(t0, arrived)
		require.NoError(t, err)
		chk, err := m.Check(arrived, x)
		require.NoError(t, err)
		require.Zero(t, chk.Violations, chk.First)
	})
}
