// Package projection is a temporary stand-in for
// github.com/msched/msched/projection (see package stopgap).
package projection

import (
	"math"
	"sync"
)

// CappedSimplex projects z onto {y: 0 <= y <= u, sum y <= c} exactly:
// y = clip(z - tau, 0, u). tau is bracketed by bisection and then solved
// exactly on the identified free set. dst may alias z.
func CappedSimplex(dst, z, u []float64, c float64) float64 {
	s := 0.0
	hi := 0.0
	for i := range z {
		s += math.Min(math.Max(z[i], 0), u[i])
		hi = math.Max(hi, z[i])
	}
	if s <= c {
		for i := range z {
			dst[i] = math.Min(math.Max(z[i], 0), u[i])
		}
		return 0
	}
	lo := 0.0
	for it := 0; it < 60; it++ {
		m := (lo + hi) / 2
		s = 0
		for i := range z {
			s += math.Min(math.Max(z[i]-m, 0), u[i])
		}
		if s > c {
			lo = m
		} else {
			hi = m
		}
	}
	// Exact tau on the free set of the bracket midpoint.
	m := (lo + hi) / 2
	sumFree, capped, n := 0.0, 0.0, 0
	for i := range z {
		v := z[i] - m
		switch {
		case v >= u[i]:
			capped += u[i]
		case v > 0:
			sumFree += z[i]
			n++
		}
	}
	tau := hi
	if n > 0 {
		if t := (sumFree + capped - c) / float64(n); t >= lo-1e-12 && t <= hi+1e-12 {
			tau = math.Max(t, 0)
		}
	}
	for i := range z {
		dst[i] = math.Min(math.Max(z[i]-tau, 0), u[i])
	}
	return tau
}

// CappedSimplexPaper stands in for the paper's procedure; here it is exact.
func CappedSimplexPaper(dst, z, u []float64, c float64) float64 { return CappedSimplex(dst, z, u, c) }

// Blocks partitions an index range: block b is Offsets[b]..Offsets[b+1]-1
// with capacity Caps[b].
type Blocks struct {
	Offsets []int
	Caps    []float64
}

// Projector projects block-separable problems with a pool of workers.
type Projector struct {
	workers int
	jobs    chan [2]int
	closed  bool
	wg      sync.WaitGroup
	dst, z  []float64
	u       []float64
	bs      Blocks
	tau     []float64
}

// NewProjector starts workers goroutines (workers <= 1 runs inline).
func NewProjector(workers int) *Projector {
	p := &Projector{workers: max(1, workers)}
	if p.workers > 1 {
		jobs := make(chan [2]int, p.workers)
		p.jobs = jobs
		for i := 0; i < p.workers; i++ {
			go func() {
				for j := range jobs {
					p.run(j[0], j[1])
					p.wg.Done()
				}
			}()
		}
	}
	return p
}

func (p *Projector) run(b0, b1 int) {
	for b := b0; b < b1; b++ {
		lo, hi := p.bs.Offsets[b], p.bs.Offsets[b+1]
		p.tau[b] = CappedSimplex(p.dst[lo:hi], p.z[lo:hi], p.u[lo:hi], p.bs.Caps[b])
	}
}

// Project projects every block of z into dst and stores each tau.
// The result does not depend on the number of workers.
func (p *Projector) Project(dst, z, u []float64, bs Blocks, tau []float64) {
	p.dst, p.z, p.u, p.bs, p.tau = dst, z, u, bs, tau
	nb := len(bs.Offsets) - 1
	if p.workers == 1 || nb < 2 {
		p.run(0, nb)
		return
	}
	chunk := (nb + p.workers - 1) / p.workers
	for b := 0; b < nb; b += chunk {
		p.wg.Add(1)
		p.jobs <- [2]int{b, min(nb, b+chunk)}
	}
	p.wg.Wait()
}

// Close stops the workers.
func (p *Projector) Close() {
	if p.jobs != nil && !p.closed {
		close(p.jobs)
		p.closed = true
	}
}
