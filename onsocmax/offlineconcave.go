package onsocmax

import (
	"context"
	"fmt"
	"math"

	"github.com/msched/msched/utility"
)

// CeilingMaxOfflineIterations bounds OfflineSettings.MaxIterations.
const CeilingMaxOfflineIterations = 10_000_000

// OfflineSettings configures OfflineConcave. The zero value is valid.
type OfflineSettings struct {
	MaxIterations int     // dual iterations; 0 means 500 (then up to MaxIterations/4+20 Frank-Wolfe steps); at most CeilingMaxOfflineIterations
	GapTol        float64 // stop when (Upper-Lower) <= GapTol*Upper; 0 means 1e-5
	// Context, if not nil, is checked before every dual and Frank-Wolfe
	// iteration; once it is done OfflineConcave returns its error
	// (context.Canceled or DeadlineExceeded, wrapped). nil never stops.
	Context context.Context
}

// OfflineResult reports OfflineConcave: the optimum of P1 lies in
// [Lower, Upper]; X (per job, aligned with Job.Units) is feasible with
// welfare Lower.
type OfflineResult struct {
	Lower, Upper float64
	X            [][]float64
	Iterations   int
	Status       Status // Success if the gap tolerance was met
}

// Gap returns (Upper - Lower) / Upper (0 when Upper = 0).
func (r *OfflineResult) Gap() float64 {
	if r.Upper <= 0 {
		return 0
	}
	return (r.Upper - r.Lower) / r.Upper
}

// OfflineConcave bounds the optimum of P1 for any utilities by Lagrangian
// relaxation of the capacity constraints (6) (the dual P2 of Proposition 1
// with mu_n solved exactly). For unit prices lambda >= 0,
//
//	D(lambda) = sum_n max_{x in X_n} sum_r [f_nr(x_r) + (beta_nr/C_r - lambda_r) x_r] + sum_r lambda_r C_r
//
// is an upper bound (weak duality); each job's inner maximum over
// X_n = {sum_r x_r <= rho_n, 0 <= x_r <= xbar_nr} is a water-filling
// with the utilities' inverse derivatives. lambda follows projected
// subgradient steps with the Polyak step (D - Lower)/|g|^2 (halved after 25
// iterations without improvement). Lower bounds come from the current and
// the averaged primal iterates made feasible by scaling every overloaded
// unit's allocations down to C_r. The returned gap is an honest certificate:
// OPT in [Lower, Upper].
func OfflineConcave(in *Instance, s *OfflineSettings) (*OfflineResult, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	maxIter, tol := 500, 1e-5
	var ctx context.Context
	if s != nil {
		ctx = s.Context
		if s.MaxIterations < 0 || s.MaxIterations > CeilingMaxOfflineIterations || s.GapTol < 0 || math.IsNaN(s.GapTol) {
			return nil, fmt.Errorf("%w: MaxIterations = %d (want in [0, CeilingMaxOfflineIterations = %d]), GapTol = %v", ErrSettings, s.MaxIterations, CeilingMaxOfflineIterations, s.GapTol)
		}
		if s.MaxIterations > 0 {
			maxIter = s.MaxIterations
		}
		if s.GapTol > 0 {
			tol = s.GapTol
		}
	}
	nu := in.Mesh.NumUnits()
	capy := in.Mesh.Capacity
	lambda := make([]float64, nu)
	load := make([]float64, nu)
	g := make([]float64, nu)
	alloc := func() [][]float64 {
		x := make([][]float64, len(in.Jobs))
		for n := range x {
			x[n] = make([]float64, len(in.Jobs[n].Units))
		}
		return x
	}
	x, avg, feas, best := alloc(), alloc(), alloc(), alloc()
	var work []float64
	res := &OfflineResult{Upper: math.Inf(1), Lower: 0, X: best, Status: IterationLimit}
	theta, stall := 1.0, 0
	zero := make([]float64, nu)
	for it := 1; it <= maxIter; it++ {
		if ctx != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("onsocmax: OfflineConcave stopped before dual iteration %d: %w", it, ctx.Err())
		}
		res.Iterations = it
		clear(load)
		D := 0.0
		for n := range in.Jobs {
			j := &in.Jobs[n]
			if cap(work) < len(j.Units) {
				work = make([]float64, len(j.Units))
			}
			D += pricedJob(x[n], work[:len(j.Units)], j, lambda, capy, j.XBar)
			for i, r := range j.Units {
				load[r] += x[n][i]
				avg[n][i] += (x[n][i] - avg[n][i]) / float64(it)
			}
		}
		var gg float64
		for r := range nu {
			if capy[r] > 0 {
				D += lambda[r] * capy[r]
				g[r] = capy[r] - load[r]
				gg += g[r] * g[r]
			}
		}
		if math.IsInf(res.Upper, 1) || D < res.Upper-1e-12*math.Abs(res.Upper) {
			res.Upper, stall = D, 0
		} else if stall++; stall >= 25 {
			theta, stall = theta/2, 0
		}
		for _, cand := range [][][]float64{x, avg} {
			if w := in.repair(feas, cand); w > res.Lower {
				res.Lower = w
				for n := range feas {
					copy(best[n], feas[n])
				}
			}
		}
		if it%50 == 0 || it == maxIter {
			if w := in.ascend(best, zero, 3); w > res.Lower {
				res.Lower = w
			}
		}
		if res.Upper-res.Lower <= tol*math.Max(res.Upper, 1e-300) {
			res.Status = Success
			break
		}
		if gg == 0 {
			break
		}
		step := theta * (D - res.Lower) / gg
		for r := range nu {
			if capy[r] > 0 {
				lambda[r] = math.Max(0, lambda[r]-step*g[r])
			}
		}
	}
	if res.Status != Success {
		if err := in.frankWolfe(ctx, res, maxIter/4+20, tol); err != nil {
			return nil, err
		}
	}
	res.Upper = math.Max(res.Upper, res.Lower)
	return res, nil
}

// frankWolfe improves res.X (feasible) by Frank-Wolfe steps with exact line
// search; the linear maximisation oracle over the P1 polytope is the
// min-cost flow of linearOpt. When every gradient entry is finite the
// Frank-Wolfe gap W(x) + grad.(s - x) is a valid upper bound by concavity
// and tightens res.Upper.
func (in *Instance) frankWolfe(ctx context.Context, res *OfflineResult, iters int, tol float64) error {
	x := res.X
	grad := make([][]float64, len(x))
	s := make([][]float64, len(x))
	for n := range x {
		grad[n] = make([]float64, len(x[n]))
		s[n] = make([]float64, len(x[n]))
	}
	gradAt := func(gamma float64) (float64, bool) {
		// Returns grad W(x + gamma (s - x)) . (s - x) and whether it is finite;
		// with gamma = 0 it also fills grad.
		var dd float64
		finite := true
		for n := range x {
			j := &in.Jobs[n]
			for i, r := range j.Units {
				c := in.Mesh.Capacity[r]
				if c <= 0 {
					grad[n][i] = 0
					continue
				}
				y := x[n][i] + gamma*(s[n][i]-x[n][i])
				gr := j.Utility[i].Deriv(y) + j.Beta[i]/c
				if math.IsInf(gr, 1) {
					finite = false
					gr = j.Utility[i].Deriv(math.Max(y, DefaultMinUnit)) + j.Beta[i]/c
				}
				if gamma == 0 {
					grad[n][i] = gr
				}
				dd += gr * (s[n][i] - x[n][i])
			}
		}
		return dd, finite
	}
	for k := 0; k < iters; k++ {
		if ctx != nil && ctx.Err() != nil {
			return fmt.Errorf("onsocmax: OfflineConcave stopped at Frank-Wolfe step %d: %w", k, ctx.Err())
		}
		gradAt(0)
		if _, err := in.linearOpt(s, grad); err != nil {
			return err
		}
		gap, finite := gradAt(0)
		w := in.Welfare(x)
		if finite && w+gap < res.Upper {
			res.Upper = w + gap
		}
		if res.Upper-res.Lower <= tol*res.Upper || gap <= 0 {
			res.Status = Success
			return nil
		}
		lo, hi := 0.0, 1.0
		if d, _ := gradAt(1); d < 0 {
			for range 50 {
				mid := (lo + hi) / 2
				if d, _ := gradAt(mid); d > 0 {
					lo = mid
				} else {
					hi = mid
				}
			}
		} else {
			lo = 1
		}
		for n := range x {
			for i := range x[n] {
				x[n][i] += lo * (s[n][i] - x[n][i])
			}
		}
		if w := in.Welfare(x); w > res.Lower {
			res.Lower = w
		}
	}
	return nil
}

// repair writes to dst the allocation x with every unit's loads scaled down
// to its capacity, and returns its welfare.
func (in *Instance) repair(dst, x [][]float64) float64 {
	load := make([]float64, in.Mesh.NumUnits())
	for n := range x {
		for i, r := range in.Jobs[n].Units {
			load[r] += x[n][i]
		}
	}
	for n := range x {
		for i, r := range in.Jobs[n].Units {
			v := x[n][i]
			if c := in.Mesh.Capacity[r]; load[r] > c {
				v *= c / load[r]
			}
			dst[n][i] = v
		}
	}
	return in.Welfare(dst)
}

// pricedJob writes to dst argmax_{x in X_n} sum_r f_nr(x_r) + (beta_nr/C_r -
// lambda_r) x_r and returns the maximum (units of zero capacity get 0).
func pricedJob(dst, work []float64, j *Job, lambda, capy, caps []float64) float64 {
	resp := func(out []float64, mu float64) float64 {
		var s float64
		for i, r := range j.Units {
			c := capy[r]
			if c <= 0 || caps[i] <= 0 {
				out[i] = 0
				continue
			}
			u := j.Utility[i]
			q := mu + lambda[r] - j.Beta[i]/c
			v := u.InvDeriv(q)
			if u.Kind == utility.Linear && q <= u.A*(1+tieTol) && q >= u.A*(1-tieTol) {
				v = math.Inf(1)
			}
			out[i] = math.Min(caps[i], v)
			s += out[i]
		}
		return s
	}
	value := func() float64 {
		var w float64
		for i, r := range j.Units {
			if dst[i] > 0 {
				w += j.Utility[i].Value(dst[i]) + (j.Beta[i]/capy[r]-lambda[r])*dst[i]
			}
		}
		return w
	}
	if j.Rho <= 0 {
		clear(dst)
		return 0
	}
	if resp(dst, 0) <= j.Rho {
		return value()
	}
	lo, hi := 0.0, 1.0
	for resp(work, hi) > j.Rho && hi < 1e300 {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if resp(work, mid) > j.Rho {
			lo = mid
		} else {
			hi = mid
		}
	}
	sLo := resp(work, lo)
	sHi := resp(dst, hi)
	if sLo > sHi {
		th := (j.Rho - sHi) / (sLo - sHi)
		for i := range dst {
			dst[i] += th * (work[i] - dst[i])
		}
	}
	return value()
}

// ascend improves the feasible allocation x in place by block-coordinate
// ascent: each job in turn is re-optimised exactly (water-filling at zero
// prices) within its caps and the capacity the other jobs leave. The welfare
// never decreases and x stays feasible. It returns the final welfare.
func (in *Instance) ascend(x [][]float64, zero []float64, sweeps int) float64 {
	capy := in.Mesh.Capacity
	load := make([]float64, in.Mesh.NumUnits())
	for n := range x {
		for i, r := range in.Jobs[n].Units {
			load[r] += x[n][i]
		}
	}
	var caps, work, trial []float64
	for range sweeps {
		for n := range in.Jobs {
			j := &in.Jobs[n]
			k := len(j.Units)
			if cap(caps) < k {
				caps, work, trial = make([]float64, k), make([]float64, k), make([]float64, k)
			}
			caps, work, trial = caps[:k], work[:k], trial[:k]
			for i, r := range j.Units {
				caps[i] = math.Max(0, math.Min(j.XBar[i], capy[r]-(load[r]-x[n][i])))
			}
			pricedJob(trial, work, j, zero, capy, caps)
			var old, nw float64
			for i, r := range j.Units {
				if capy[r] > 0 {
					old += j.Utility[i].Value(x[n][i]) + j.Beta[i]*x[n][i]/capy[r]
					nw += j.Utility[i].Value(trial[i]) + j.Beta[i]*trial[i]/capy[r]
				}
			}
			if nw > old {
				for i, r := range j.Units {
					load[r] += trial[i] - x[n][i]
					x[n][i] = trial[i]
				}
			}
		}
	}
	return in.Welfare(x)
}
