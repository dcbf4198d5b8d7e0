package bipartite

// CapacityTol is the relative tolerance of the library's one capacity
// rule (see the package documentation, section Capacity arithmetic): a
// load fits a capacity c when it is at most c + CapacityTol·c.
const CapacityTol = 1e-9

// Fits reports whether load fits capacity under the library's one
// capacity rule:
//
//	load <= capacity + CapacityTol*capacity
//
// evaluated in float64 exactly as written. A NaN load or capacity never
// fits. Every family, oracle, baseline and GangModel.Check decides a fit
// with Fits (or FitsAdd), with the load summed as the package
// documentation says.
func Fits(load, capacity float64) bool {
	return load <= capacity+CapacityTol*capacity
}

// FitLimit returns capacity + CapacityTol*capacity, the largest load that
// Fits accepts: Fits(load, capacity) == (load <= FitLimit(capacity)) for
// every load. Solvers that compare many loads against one capacity
// precompute it.
func FitLimit(capacity float64) float64 {
	return capacity + CapacityTol*capacity
}

// FitsAdd reports whether a demand vector a added to the loads load fits
// the capacities capacity: Fits(load[k]+a[k], capacity[k]) for every k.
// It panics if the lengths differ.
func FitsAdd(load, a, capacity []float64) bool {
	if len(load) != len(a) || len(capacity) != len(a) {
		panic("bipartite: FitsAdd: mismatched lengths")
	}
	for k, x := range a {
		if !Fits(load[k]+x, capacity[k]) {
			return false
		}
	}
	return true
}
