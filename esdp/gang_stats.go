package esdp

import (
	"fmt"
	"math"
)

// observeGang checks the feedback fb of slot t against the placement x of
// the decision awaiting it (decided, made at slot lastT) on the channels
// ch, and adds the reported rewards to the per-channel statistics st. A
// component may be reported on the server x placed it on, or as -1 (no
// reward reported). Errors wrap ErrSlot (no pending decision, another
// slot), ErrDimension (lengths) or ErrValue (a component reported on
// another server, a reward outside [0,1], a count at math.MaxInt); st is
// then unchanged. Gang policies of the family (and the gang baselines)
// call it from Observe.
func observeGang(st *Stats, ch *GangChannels, x []int, decided bool, lastT, t int, fb GangFeedback) error {
	if st == nil || ch == nil {
		return fmt.Errorf("%w: nil statistics or channels", ErrDimension)
	}
	if !decided {
		return fmt.Errorf("%w: feedback for slot %d without a pending decision (Observe follows each Decide once)", ErrSlot, t)
	}
	if t != lastT {
		return fmt.Errorf("%w: feedback for slot %d, last decision at slot %d", ErrSlot, t, lastT)
	}
	C := len(x)
	if len(fb.Server) != C || len(fb.Reward) != C || st.Len() != ch.Len() {
		return fmt.Errorf("%w: len(Server) = %d, len(Reward) = %d, want %d components", ErrDimension, len(fb.Server), len(fb.Reward), C)
	}
	for c, s := range fb.Server {
		if s == -1 {
			continue
		}
		if s != x[c] || s < 0 {
			return fmt.Errorf("%w: feedback for component %d on server %d, slot %d's decision placed it on %d", ErrValue, c, s, t, x[c])
		}
		if z := fb.Reward[c]; !(z >= 0 && z <= 1) {
			return fmt.Errorf("%w: reward of component %d = %v, want [0,1]", ErrValue, c, z)
		}
		i, ok := ch.Channel(c, s)
		if !ok {
			return fmt.Errorf("%w: component %d on server %d is not a channel", ErrValue, c, s)
		}
		if st.count[i] == math.MaxInt {
			return fmt.Errorf("%w: count of channel %d = math.MaxInt", ErrValue, i)
		}
	}
	for c, s := range fb.Server {
		if s >= 0 {
			i, _ := ch.Channel(c, s)
			st.count[i]++
			st.sum[i] += fb.Reward[c]
		}
	}
	return nil
}
