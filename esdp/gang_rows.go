package esdp

// gangRows keeps, for every depth of the current search, what its node
// bounds found at the node last entered at that depth: per position
// d.. of the search order a component's best fitting channels
// (residBound), and per server its best fitting pattern (ldServerBound).
// A child differs from its parent by one decision, so its bounds are
// the parent's but where that decision's server no longer fits: the
// rows turn a node's O(channels · K) scans into O(components + servers)
// checks, with the same values.
type gangRows struct {
	on  bool
	n   int
	e   []rowEntry // row d: positions d..n-1, at off(d)
	srv []int32    // row d: per server, the index in ld.order of its best pattern (ordStart[r+1]: none)
}

// rowEntry is a component's best fitting channels: by value (b0, a0),
// reduced value (bM, aM) and v - lambda (bL, aL); channel -1 for none.
type rowEntry struct {
	b0, bM, bL float64
	a0, aM, aL int32
}

// rowsFull marks the search's root for residBound and ldServerBound:
// no parent row, a full scan.
const rowsFull = -2

// rowsMaxN bounds the components of a search that keeps rows, and
// rowsMaxSrv its (n+1)·servers pattern indices: their memory is
// n(n+1)/2 entries of 40 bytes (5 MiB at 512) and 4 MiB. Larger searches
// scan every node in full.
const (
	rowsMaxN   = 512
	rowsMaxSrv = 1 << 20
)

// reset prepares the rows of a search over n components on R servers
// (the pattern rows when ld).
func (rw *gangRows) reset(n, R int, ld bool) {
	rw.on, rw.n = n <= rowsMaxN && (!ld || (n+1)*R <= rowsMaxSrv), n
	if !rw.on {
		return
	}
	if need := n * (n + 1) / 2; cap(rw.e) < need {
		rw.e = make([]rowEntry, need)
	} else {
		rw.e = rw.e[:need]
	}
	if ld {
		if need := (n + 1) * R; cap(rw.srv) < need {
			rw.srv = make([]int32, need)
		} else {
			rw.srv = rw.srv[:need]
		}
	}
}

// off is the first entry of row d.
func (rw *gangRows) off(d int) int { return d*rw.n - d*(d-1)/2 }
