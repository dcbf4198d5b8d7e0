package esdp

import (
	"fmt"
	"math"
)

// checkNodeBounds recomputes a search node's bounds by full scans (every
// fitting channel of every free component, every pattern of every
// server, as before the rows) and panics when residBound or
// ldServerBound (srv; NaN when not computed) differ: a debug build's
// check (debugChecks) that the incremental rows give the same values.
func (s *gangSolve) checkNodeBounds(seq []int, d int, b0, bm, bl, srv float64) {
	o, m := s.o, s.ch.model
	ldOn := s.ldVals()
	var w0, wm, wl float64
	n := len(seq)
	var v0, vm, vl []float64
	for e := d; e < n; {
		l := m.Job(seq[e])
		end := e + o.remIncl[e]
		pl := o.placed[l]
		v0, vm, vl = v0[:0], vm[:0], vl[:0]
		for _, c := range seq[e:end] {
			a := m.Demand(c)
			x0, xm, xl := math.Inf(-1), math.Inf(-1), math.Inf(-1)
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				if s.ch.fits[i] && !s.fixedOut(i) && s.fitsAt(a, s.ch.Server(i)) {
					x0, xm = max(x0, s.p.Value[i]), max(xm, o.w[i])
					if ldOn {
						xl = max(xl, o.ld.vals[i])
					}
				}
			}
			if xm > math.Inf(-1) {
				v0, vm, vl = append(v0, x0), append(vm, xm), append(vl, xl)
			}
		}
		need, canZero := max(0, m.Min(l)-pl), pl == 0 && !s.o.forceIn[l]
		if len(v0) < need {
			if !canZero {
				w0, wm, wl = math.Inf(-1), math.Inf(-1), math.Inf(-1)
				break
			}
		} else {
			p0, pm := jobPart(v0, need, canZero), jobPart(vm, need, canZero)
			if pl == 0 {
				p0, pm = min(p0, o.cap0[l]), min(pm, o.capM[l])
			}
			w0, wm = w0+p0, wm+pm
			if ldOn {
				wl += jobPart(vl, need, canZero)
			}
		}
		e = end
	}
	if w0 != b0 || wm != bm || wl != bl {
		panic(fmt.Sprintf("esdp: gang search depth %d: residBound (%v, %v, %v), full scan (%v, %v, %v)", d, b0, bm, bl, w0, wm, wl))
	}
	if !o.ld.on || math.IsNaN(srv) {
		return
	}
	ld := &o.ld
	K := s.K
	total := 0.0
	for r := 0; r < len(ld.srvStart)-1; r++ {
		ldr := o.load[r*K : (r+1)*K]
		best := 0.0
	pat:
		for p := ld.srvStart[r]; p < ld.srvStart[r+1]; p++ {
			chans := ld.patChan[ld.patStart[p]:ld.patStart[p+1]]
			if len(chans) == 0 {
				continue
			}
			v := 0.0
			for _, i := range chans {
				if ld.pos[s.ch.Component(i)] < d {
					continue pat
				}
				v += ld.lam[i]
			}
			for k, x := range ld.patDem[p*K : (p+1)*K] {
				if !(ldr[k]+x <= ldSlack(o.capv[r*K+k])) {
					continue pat
				}
			}
			best = max(best, v)
		}
		total += best
	}
	if total != srv {
		panic(fmt.Sprintf("esdp: gang search depth %d: ldServerBound %v, full scan %v", d, srv, total))
	}
}
