package projection

// smallN is the largest block size for which CappedSimplex may sort the
// breakpoints on the stack instead of iterating Newton passes (at most 63
// so that idx fits in an int8). The switch itself is kernel.SmallBlock():
// the measured crossover for the kernels in use, 8 to 24.
const smallN = 24

// capSmall is CappedSimplex for n <= smallN: one pass checks the input,
// sums phi(0) and collects the breakpoints in stack arrays; if phi(0) > c
// it insertion-sorts them and walks them with exact running sums: on the
// piece between two breakpoints phi(x) = sum - m x, sum adding u_i over
// capped and z_i over free coordinates.
func capSmall(dst, z, u []float64, c float64) float64 {
	// Stack buffers sized to the block: Go zeroes them on every call.
	if len(z) <= 8 {
		var key [16]float64
		var idx [16]int8
		return capSmallBuf(dst, z, u, c, key[:], idx[:])
	}
	var key [2 * smallN]float64
	var idx [2 * smallN]int8
	return capSmallBuf(dst, z, u, c, key[:], idx[:])
}

// capSmallBuf is capSmall with breakpoint buffers of length >= 2 len(z):
// key holds the breakpoints, idx i+1 for "capped -> free" at b_i and
// -(i+1) for "free -> zero" at z_i.
func capSmallBuf(dst, z, u []float64, c float64, key []float64, idx []int8) float64 {
	k := 0
	sum, m := 0.0, 0
	chk := 0.0
	bad := false
	u = u[:len(z)]
	for i, zi := range z {
		ui := u[i]
		chk += (zi - zi) + (ui - ui) // NaN iff a value is NaN or Inf
		if ui < 0 {
			bad = true
		}
		if zi <= 0 {
			continue
		}
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
	if chk != 0 || bad {
		panic(badInput(z, u))
	}
	tau := 0.0
	if sum > c {
		tau = walkSmall(key[:k], idx[:k], z, u, c, sum, m)
	}
	clipTo(dst, z, u, tau)
	return tau
}

// walkSmall sorts the breakpoints and returns the root of phi(x) = c.
func walkSmall(key []float64, idx []int8, z, u []float64, c, sum float64, m int) float64 {
	// Insertion sort by key; on ties "capped -> free" first.
	for a := 1; a < len(key); a++ {
		kv, iv := key[a], idx[a]
		b := a
		for b > 0 && (key[b-1] > kv || (key[b-1] == kv && idx[b-1] < 0 && iv > 0)) {
			key[b], idx[b] = key[b-1], idx[b-1]
			b--
		}
		key[b], idx[b] = kv, iv
	}
	prev := 0.0
	for e, x := range key {
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
