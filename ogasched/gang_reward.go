package ogasched

import (
	"fmt"
	"math"

	"github.com/msched/msched/bipartite"
)

// GangReward returns the gang reward of one slot: for every job l that
// counts (GangMinComponents: at least m_l components placed; literal: any),
// x_l times the sum over its placed components c (on server r) of
//
//	sum_k f_r^k(a_c^k) - max_k beta_k a_c^k
//
// the per-port reward (7)-(8) of the component as a port with y = a_c
// (package doc, "# Gangs"). p is GangRelaxation(m, s) (its utilities and
// beta are used); server[c] is the server of flat component c or -1.
// Components placed on a server out of range or not adjacent to their job,
// and components of jobs with x_l = 0, count nothing: GangModel.Check
// counts them as violations; capacity is not checked here. served is the
// number of jobs that count. Errors wrap ErrDimension (mismatched lengths,
// a nil argument).
func GangReward(p *Problem, m *bipartite.GangModel, reading GangReading, x []float64, server []int) (reward float64, served int, err error) {
	if p == nil || m == nil {
		return 0, 0, fmt.Errorf("%w: GangReward: nil problem or model", ErrDimension)
	}
	if p.NumPorts() != m.NumComponents() || p.NumNodes() != m.NumServers() || p.K != m.K() {
		return 0, 0, fmt.Errorf("%w: GangReward: problem (%d ports, %d nodes, K %d) is not the model's relaxation (%d components, %d servers, K %d)",
			ErrDimension, p.NumPorts(), p.NumNodes(), p.K, m.NumComponents(), m.NumServers(), m.K())
	}
	if len(x) != m.NumJobs() || len(server) != m.NumComponents() {
		return 0, 0, fmt.Errorf("%w: GangReward: len(x) = %d, len(server) = %d, want %d jobs and %d components",
			ErrDimension, len(x), len(server), m.NumJobs(), m.NumComponents())
	}
	R := m.NumServers()
	g := m.Graph()
	for l := 0; l < m.NumJobs(); l++ {
		if !(x[l] > 0) {
			continue
		}
		lo, hi := m.Components(l)
		n, v := 0, 0.0
		for c := lo; c < hi; c++ {
			r := server[c]
			if r < 0 || r >= R {
				continue
			}
			if _, ok := g.EdgeID(l, r); !ok {
				continue
			}
			n++
			v += componentValue(p, m.Demand(c), r)
		}
		need := m.Min(l)
		if reading == GangLiteralPositive {
			need = 1
		}
		if n > 0 && n >= need {
			served++
			reward += x[l] * v
		}
	}
	return reward, served, nil
}

// componentValue is sum_k f_r^k(a_k) - max_k beta_k a_k.
func componentValue(p *Problem, a []float64, r int) float64 {
	gain, over := 0.0, 0.0
	for k, ak := range a {
		gain += p.Utility[r][k].Value(ak)
		over = max(over, p.Beta[k]*ak)
	}
	return gain - over
}

// GangBestFixed returns the best fixed allocation in hindsight y* of the
// relaxation p = GangRelaxation(m, s) for the job arrivals arrivals[t][l]
// (BestFixed on the component arrivals). Its Bound is an upper bound on
// the total reward of every fixed point of the relaxation, hence of every
// fixed gang placement and of OGASched-gang's fractional decisions plus
// their regret; see the package doc ("# Gangs") for what it does not
// bound. Errors wrap ErrDimension, ErrValue or ErrSettings.
func GangBestFixed(p *Problem, m *bipartite.GangModel, arrivals [][]float64, bs BestFixedSettings) (*BestFixedResult, error) {
	if p == nil || m == nil {
		return nil, fmt.Errorf("%w: GangBestFixed: nil problem or model", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.NumPorts() != m.NumComponents() {
		return nil, fmt.Errorf("%w: GangBestFixed: problem has %d ports, the model %d components", ErrDimension, p.NumPorts(), m.NumComponents())
	}
	if bs.Tol == 0 {
		bs.Tol = 1e-6
	}
	if !(bs.Tol > 0 && bs.Tol < 1) {
		return nil, fmt.Errorf("%w: Tol = %v, want in [0, 1)", ErrSettings, bs.Tol)
	}
	if bs.MaxIter == 0 {
		bs.MaxIter = 20000
	}
	if bs.Workers < 0 || bs.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, bs.Workers, MaxWorkers)
	}
	if bs.MaxIter < 0 || bs.MaxIter > MaxBestFixedIter {
		return nil, fmt.Errorf("%w: MaxIter = %d outside [0, %d]", ErrSettings, bs.MaxIter, MaxBestFixedIter)
	}
	J := m.NumJobs()
	XJ := make([]float64, J)
	for t, x := range arrivals {
		if len(x) != J {
			return nil, fmt.Errorf("%w: len(arrivals[%d]) = %d, want %d jobs", ErrDimension, t, len(x), J)
		}
		for l, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return nil, fmt.Errorf("%w: arrivals[%d][%d] = %v, want finite in [0, %g]", ErrValue, t, l, v, MaxValue)
			}
			XJ[l] += v
		}
	}
	X := GangArrivals(make([]float64, m.NumComponents()), m, XJ)
	return bestFixed(p, X, bs)
}

// GangJobBound returns an upper bound on the total gang reward of every
// policy, adaptive or not, on the job arrivals arrivals[t][l]:
//
//	sum_t sum_l x_l(t) V_l,  V_l = sum_{c of l} max(0, max_{r in R_l, a_c fits c_r} v(c, r))
//
// with v(c, r) = sum_k f_r^k(a_c^k) - max_k beta_k a_c^k the value of
// component c on r, and V_l = 0 when fewer than m_l components fit any
// server alone. A job's reward in any slot is at most V_l (its components'
// best servers, capacity shared with nobody), so the bound holds for every
// placement of every slot. p is GangRelaxation(m, s). Errors wrap
// ErrDimension or ErrValue.
func GangJobBound(p *Problem, m *bipartite.GangModel, arrivals [][]float64) (float64, error) {
	if p == nil || m == nil {
		return 0, fmt.Errorf("%w: GangJobBound: nil problem or model", ErrDimension)
	}
	if p.NumPorts() != m.NumComponents() || p.NumNodes() != m.NumServers() || p.K != m.K() {
		return 0, fmt.Errorf("%w: GangJobBound: problem is not the model's relaxation", ErrDimension)
	}
	J := m.NumJobs()
	V := make([]float64, J)
	for l := range V {
		lo, hi := m.Components(l)
		fit := 0
		for c := lo; c < hi; c++ {
			best, ok := 0.0, false
			for _, r := range m.Graph().LeftNeighbors(l) {
				if m.Fits(c, r) {
					ok = true
					best = max(best, componentValue(p, m.Demand(c), r))
				}
			}
			if ok {
				fit++
				V[l] += best
			}
		}
		if fit < m.Min(l) {
			V[l] = 0
		}
	}
	total := 0.0
	for t, x := range arrivals {
		if len(x) != J {
			return 0, fmt.Errorf("%w: len(arrivals[%d]) = %d, want %d jobs", ErrDimension, t, len(x), J)
		}
		for l, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return 0, fmt.Errorf("%w: arrivals[%d][%d] = %v, want finite in [0, %g]", ErrValue, t, l, v, MaxValue)
			}
			total += v * V[l]
		}
	}
	return total, nil
}
