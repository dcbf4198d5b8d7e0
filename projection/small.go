package projection

// smallN is the block size up to which CappedSimplex sorts the breakpoints
// on the stack instead of iterating Newton passes.
const smallN = 16

// smallTau returns the multiplier for a block of n <= smallN coordinates
// with phi(0) = s > c, by sorting its breakpoints (insertion sort on the
// stack) and walking them with exact running sums: on the piece between
// two breakpoints phi(x) = sum - m x, sum adding u_i over capped and z_i
// over free coordinates.
func smallTau(z, u []float64, c float64) float64 {
	var key [2 * smallN]float64
	var idx [2 * smallN]int8 // i+1 for "capped -> free" at b_i, -(i+1) for "free -> zero" at z_i
	k := 0
	sum, m := 0.0, 0
	for i, zi := range z {
		if zi <= 0 {
			continue
		}
		ui := u[i]
		if bi := zi - ui; bi > 0 {
			sum += ui
			key[k], idx[k] = bi, int8(i+1)
			k++
		} else {
			sum += zi
			m++
		}
		key[k], idx[k] = zi, int8(-(i + 1))
		k++
	}
	// Insertion sort by key; on ties "capped -> free" first.
	for a := 1; a < k; a++ {
		kv, iv := key[a], idx[a]
		b := a
		for b > 0 && (key[b-1] > kv || (key[b-1] == kv && idx[b-1] < 0 && iv > 0)) {
			key[b], idx[b] = key[b-1], idx[b-1]
			b--
		}
		key[b], idx[b] = kv, iv
	}
	prev := 0.0
	for e := 0; e < k; e++ {
		x := key[e]
		if sum-float64(m)*x <= c {
			// The root is in [prev, x], where phi(x) = sum - m x.
			if m == 0 {
				return x
			}
			return min(max((sum-c)/float64(m), prev), x)
		}
		if i := idx[e]; i > 0 {
			sum += z[i-1] - u[i-1]
			m++
		} else {
			sum -= z[-i-1]
			m--
		}
		prev = x
	}
	return prev
}
