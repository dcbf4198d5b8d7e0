package esdp

import "fmt"

// checkGangPlays refuses statistics no run reaches: a component is played
// on at most one channel per observed slot, slots run 0..lastT, and the
// slot of a pending decision is not observed yet, so the plays of a
// component's channels sum to at most lastT+1 (lastT with a pending
// decision), and to 0 before the first Decide (issue 30: more plays than
// slots, or plays before the first decision, were accepted). lastT is in
// [0, MaxInt) here (CheckGangState checks it first).
func checkGangPlays(ch *GangChannels, st *Stats, started bool, lastT int, pending bool) error {
	limit := 0
	if started {
		limit = lastT + 1
		if pending {
			limit = lastT
		}
	}
	for c := range ch.model.NumComponents() {
		lo, hi := ch.Range(c)
		plays := 0
		for i := lo; i < hi; i++ {
			n := st.count[i]
			if n > limit-plays { // plays+n > limit, without overflow (0 <= plays <= limit)
				return fmt.Errorf("%w: %w: component %d: its channels count more than %d plays (count[%d] = %d), the most slots 0..%d allow (started = %v, pending = %v)",
					ErrSnapshot, ErrValue, c, limit, i, n, lastT, started, pending)
			}
			plays += n
		}
	}
	return nil
}
