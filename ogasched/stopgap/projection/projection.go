// Package projection is a temporary stand-in for
// github.com/msched/msched/projection (see package stopgap).
package projection

import "math"

func CappedSimplex(dst, z, u []float64, c float64) float64 {
	s := 0.0
	for i := range z {
		dst[i] = math.Min(math.Max(z[i], 0), u[i])
		s += dst[i]
	}
	if s <= c {
		return 0
	}
	lo, hi := 0.0, 0.0
	for i := range z {
		hi = math.Max(hi, z[i])
	}
	for it := 0; it < 200; it++ {
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
	for i := range z {
		dst[i] = math.Min(math.Max(z[i]-hi, 0), u[i])
	}
	return hi
}
func CappedSimplexPaper(dst, z, u []float64, c float64) float64 { return CappedSimplex(dst, z, u, c) }

type Blocks struct {
	Offsets []int
	Caps    []float64
}
type Projector struct{}

func NewProjector(workers int) *Projector { return &Projector{} }
func (p *Projector) Project(dst, z, u []float64, bs Blocks, tau []float64) {
	for b := 0; b+1 < len(bs.Offsets); b++ {
		lo, hi := bs.Offsets[b], bs.Offsets[b+1]
		tau[b] = CappedSimplex(dst[lo:hi], z[lo:hi], u[lo:hi], bs.Caps[b])
	}
}
func (p *Projector) Close() {}
