package gpushare

import (
	"slices"
	"sort"
	"sync"
	"sync/atomic"
)

// FragMemo memoises FragAmount by the node's canonical state, for one
// workload at a time. It is safe for concurrent use (kube-scheduler
// scores nodes in parallel).
//
// FragAmount(n, w) depends on the node only through its GPU model, the
// multiset of its GPUs' free milli, and its free CPU compared with each
// shape's CPU request; thousands of nodes share such a state. The memo
// keys a value by (model, CPU class, free milli sorted increasing), the
// CPU class being the number of distinct shape CPU requests at or below
// the node's free CPU (two CPUs of one class compare alike with every
// shape). The value stored is the one FragAmount computes, in the same
// order of operations, so a memoised FragAmount is bit-for-bit the direct
// one (TestFragMemoIdentical, TestRunFGDMemoIdentical in kube/openb).
//
// The memo is reset when it is asked about another workload (the
// Learner's rebuild gives a new *Workload every Every arrivals); a
// Workload must not be modified once in use. Memory is bounded: at most
// MaxMemoEntries states, each key at most MaxMemoModel bytes of model
// plus 48 bytes (about 13 MiB at the limit with map overhead); when full
// the map is cleared and refilled. Nodes with more than MemoGPUs GPUs, a
// model name longer than MaxMemoModel, or a free milli outside [0, 1000]
// (a Node built by hand) are computed directly, never stored.
type FragMemo struct {
	mu   sync.RWMutex
	w    *Workload
	cuts []int64 // distinct CPU requests of w's shapes, increasing
	m    map[memoKey]float64

	hits, misses atomic.Uint64
	resets       uint64 // under mu
}

// Bounds of FragMemo.
const (
	// MaxMemoEntries bounds the states a FragMemo holds.
	MaxMemoEntries = 1 << 16
	// MemoGPUs is the largest GPU count memoised (OpenB nodes have at
	// most 8).
	MemoGPUs = 8
	// MaxMemoModel is the longest GPU model name memoised.
	MaxMemoModel = 64
)

type memoKey struct {
	model string
	cpu   int32
	n     uint8
	gpus  [MemoGPUs]uint16
}

// NewFragMemo returns an empty memo.
func NewFragMemo() *FragMemo { return &FragMemo{m: map[memoKey]float64{}} }

// MemoStats counts a memo's lookups answered from the map (Hits), computed
// (Misses) and the times a full map was cleared (Resets).
type MemoStats struct{ Hits, Misses, Resets uint64 }

// Stats returns the memo's counters.
func (m *FragMemo) Stats() MemoStats {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return MemoStats{m.hits.Load(), m.misses.Load(), m.resets}
}

// key returns the canonical state, false when it is not memoised.
// Called with m.mu held (read or write) and m.w current.
func (m *FragMemo) key(model string, cpu int64, gpus []int64) (memoKey, bool) {
	var k memoKey
	if len(gpus) > MemoGPUs || len(model) > MaxMemoModel {
		return k, false
	}
	for i, g := range gpus {
		if g < 0 || g > Milli {
			return k, false
		}
		// insertion sort, at most MemoGPUs entries
		j := i
		for ; j > 0 && k.gpus[j-1] > uint16(g); j-- {
			k.gpus[j] = k.gpus[j-1]
		}
		k.gpus[j] = uint16(g)
	}
	k.n = uint8(len(gpus))
	k.model = model
	k.cpu = int32(sort.Search(len(m.cuts), func(i int) bool { return m.cuts[i] > cpu }))
	return k, true
}

// FragAmount returns FragAmount(n, w), memoised. A nil memo computes
// directly.
func (m *FragMemo) FragAmount(n *Node, w *Workload) float64 {
	return m.frag(n.Model, n.CPUMilli, n.GPUs, w)
}

// frag is FragAmount of the node state (model, cpu, gpus); gpus does not
// escape (FGD.Score passes an array on its stack).
func (m *FragMemo) frag(model string, cpu int64, gpus []int64, w *Workload) float64 {
	direct := func() float64 { return FragAmount(&Node{Model: model, CPUMilli: cpu, GPUs: gpus}, w) }
	if m == nil || w == nil {
		return direct()
	}
	// Hits (nearly every lookup once warm) take the read lock only:
	// kube-scheduler scores nodes from 16 goroutines at once.
	m.mu.RLock()
	current := m.w == w
	var k memoKey
	var ok bool
	if current {
		k, ok = m.key(model, cpu, gpus)
		if ok {
			if v, hit := m.m[k]; hit {
				m.mu.RUnlock()
				m.hits.Add(1)
				return v
			}
		}
	}
	m.mu.RUnlock()
	if current && !ok {
		return direct()
	}
	m.mu.Lock()
	if m.w != w {
		m.reset(w)
	}
	k, ok = m.key(model, cpu, gpus)
	if !ok {
		m.mu.Unlock()
		return direct()
	}
	if v, hit := m.m[k]; hit {
		m.mu.Unlock()
		m.hits.Add(1)
		return v
	}
	m.mu.Unlock()
	m.misses.Add(1)
	v := direct()
	m.mu.Lock()
	if m.w == w {
		if len(m.m) >= MaxMemoEntries {
			clear(m.m)
			m.resets++
		}
		m.m[k] = v
	}
	m.mu.Unlock()
	return v
}

// reset empties the memo for workload w. Called with m.mu held.
func (m *FragMemo) reset(w *Workload) {
	m.w = w
	if m.m == nil {
		m.m = map[memoKey]float64{}
	}
	clear(m.m)
	m.cuts = m.cuts[:0]
	for i := range w.Shapes {
		m.cuts = append(m.cuts, w.Shapes[i].req.CPUMilli)
	}
	slices.Sort(m.cuts)
	m.cuts = slices.Compact(m.cuts)
}
