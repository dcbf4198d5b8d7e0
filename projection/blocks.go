package projection

import (
	"fmt"
	"sync"

	"github.com/msched/msched/projection/internal/kernel"
)

// Blocks partitions an index range into independent capped-simplex blocks:
// block b is [Offsets[b], Offsets[b+1]) with capacity Caps[b]. In OGASched
// one block is one (r,k) pair: the ports l in L_r with bounds a_l^k and
// capacity c_r^k.
type Blocks struct {
	Offsets []int
	Caps    []float64
}

// NumBlocks returns the number of blocks, len(Caps).
func (bs Blocks) NumBlocks() int { return len(bs.Caps) }

// minParallel is the number of coordinates below which Project runs inline.
const minParallel = 4096

// Projector projects many independent blocks, in parallel when it has more
// than one worker. Results do not depend on the number of workers: each
// block is projected by CappedSimplex alone, so the output is bit-for-bit
// the same. A Projector is not safe for concurrent use (one Project call at
// a time); its workers are goroutines started by NewProjector and stopped
// by Close.
type Projector struct {
	workers int
	jobs    chan chunk
	wg      sync.WaitGroup
	closed  bool

	// The current call, written before the chunks are sent.
	dst, z, u []float64
	bs        Blocks
	tau       []float64

	mu       sync.Mutex
	panicked any
}

type chunk struct{ b0, b1 int }

// MaxWorkers caps the workers of a Projector: NewProjector(1e9) would
// otherwise allocate a 64 GB queue and start a billion goroutines, and
// NewProjector(math.MaxInt) overflowed the queue length. Results do not
// depend on the worker count, so the cap changes nothing but memory.
const MaxWorkers = 1024

// NewProjector returns a Projector with the given number of workers;
// workers <= 1 means every call runs in the caller's goroutine, and
// workers above MaxWorkers mean MaxWorkers. It starts workers-1 goroutines
// (the caller works too); call Close to stop them.
func NewProjector(workers int) *Projector {
	p := &Projector{workers: min(max(1, workers), MaxWorkers)}
	if p.workers > 1 {
		jobs := make(chan chunk, 4*p.workers+1)
		p.jobs = jobs
		for range p.workers - 1 {
			go func() {
				for ch := range jobs {
					p.runSafe(ch)
					p.wg.Done()
				}
			}()
		}
	}
	return p
}

// Workers returns the number of workers.
func (p *Projector) Workers() int { return p.workers }

// Project sets dst[lo:hi] to the projection of z[lo:hi] onto
// {0 <= y <= u[lo:hi], sum y <= Caps[b]} for every block b = [lo, hi) and,
// if tau is not nil, tau[b] to its multiplier (see CappedSimplex). Indices
// outside every block are left alone. dst may be z. It allocates nothing.
//
// Project panics if dst, z and u differ in length, if len(Offsets) !=
// len(Caps)+1, if the offsets are decreasing or outside [0, len(z)], if tau
// is shorter than the number of blocks, if the Projector is closed, or if
// CappedSimplex panics on a block (invalid data; the panic is re-raised in
// the caller's goroutine).
func (p *Projector) Project(dst, z, u []float64, bs Blocks, tau []float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: Project lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	nb := len(bs.Caps)
	if len(bs.Offsets) != nb+1 {
		panic(fmt.Sprintf("projection: Project has %d offsets for %d blocks", len(bs.Offsets), nb))
	}
	if tau != nil && len(tau) < nb {
		panic(fmt.Sprintf("projection: Project tau has length %d < %d blocks", len(tau), nb))
	}
	prev := 0
	for b, o := range bs.Offsets {
		if o < prev || o > n {
			panic(fmt.Sprintf("projection: Project offset %d = %d out of order or range [0, %d]", b, o, n))
		}
		prev = o
	}
	if p.closed {
		panic("projection: Project on a closed Projector")
	}
	span := bs.Offsets[nb] - bs.Offsets[0]
	if p.workers == 1 || nb < 2 || span < minParallel {
		projectRange(dst, z, u, bs, tau, 0, nb)
		return
	}
	p.dst, p.z, p.u, p.bs, p.tau = dst, z, u, bs, tau
	// Chunks of about equal size in coordinates, a few per worker, all
	// queued at once (the channel holds them); the caller drains the queue
	// with the workers.
	nc := 4 * p.workers
	per := (span + nc - 1) / nc
	for b0 := 0; b0 < nb; {
		b1 := b0 + 1
		for b1 < nb && bs.Offsets[b1]-bs.Offsets[b0] < per {
			b1++
		}
		p.wg.Add(1)
		p.jobs <- chunk{b0, b1}
		b0 = b1
	}
	for drained := false; !drained; {
		select {
		case ch := <-p.jobs:
			p.runSafe(ch)
			p.wg.Done()
		default:
			drained = true
		}
	}
	p.wg.Wait()
	p.dst, p.z, p.u, p.bs, p.tau = nil, nil, nil, Blocks{}, nil
	if v := p.panicked; v != nil {
		p.panicked = nil
		panic(v)
	}
}

// runSafe projects one chunk and records a panic instead of crashing the
// worker.
func (p *Projector) runSafe(ch chunk) {
	defer func() {
		if v := recover(); v != nil {
			p.mu.Lock()
			if p.panicked == nil {
				p.panicked = v
			}
			p.mu.Unlock()
		}
	}()
	projectRange(p.dst, p.z, p.u, p.bs, p.tau, ch.b0, ch.b1)
}

// projectRange projects blocks b0 to b1-1. Blocks that CappedSimplex
// hands to capTiny call kernel.TinySolve directly (the same computation
// without three calls and their checks per block: OGASched projects
// thousands of such blocks per slot).
func projectRange(dst, z, u []float64, bs Blocks, tau []float64, b0, b1 int) {
	tmax := kernel.TinyBlock()
	if kernel.SmallBlock() < tmax {
		tmax = 0 // CappedSimplex would not take capTiny
	}
	var r kernel.Tiny
	for b := b0; b < b1; b++ {
		lo, hi := bs.Offsets[b], bs.Offsets[b+1]
		c := bs.Caps[b]
		var t float64
		if n := hi - lo; n >= tinyMin && n <= tmax && c >= 0 {
			kernel.TinySolve(&r, dst[lo:hi], z[lo:hi], u[lo:hi], c)
			if r.State < 0 {
				panic(badInput(z[lo:hi], u[lo:hi]))
			}
			t = r.Tau
		} else {
			t = CappedSimplex(dst[lo:hi], z[lo:hi], u[lo:hi], c)
		}
		if tau != nil {
			tau[b] = t
		}
	}
}

// Close stops the workers. The Projector must not be used afterwards;
// Close may be called more than once.
func (p *Projector) Close() {
	if p.jobs != nil && !p.closed {
		close(p.jobs)
	}
	p.closed = true
}
