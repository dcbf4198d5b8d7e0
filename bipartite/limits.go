package bipartite

import (
	"errors"
	"fmt"

	"github.com/msched/msched/internal/checked"
)

// Default limits; see Limits and the package documentation, section Limits.
const (
	// DefaultMaxVertices bounds |L| and |R| of a graph: 2^24 = 16,777,216
	// vertices per side (two CSR pointer arrays of 128 MiB each).
	DefaultMaxVertices = 1 << 24
	// DefaultMaxEdges bounds |E| of a graph: 2^25 = 33,554,432 edges, about
	// 2.5 GiB while a graph is decoded and built (80 bytes per edge at the peak).
	DefaultMaxEdges = 1 << 25
	// DefaultMaxPairs bounds |L| × |R| for the generators that visit every
	// pair (Complete, Bernoulli): 2^30 ≈ 1.07e9 draws, about ten seconds.
	DefaultMaxPairs = 1 << 30
	// DefaultMaxUnits bounds Nodes × Slots of a Mesh: 2^26 = 67,108,864
	// resource units, 512 MiB of capacities.
	DefaultMaxUnits = 1 << 26
)

// Ceilings: the largest values a Limits field may be raised to. A field
// above its ceiling is an error from Limits.Validate (wrapping
// ErrTooLarge, naming the field, the value and the ceiling), which every
// constructor, generator and decoder with a Limits calls first: a user who
// raises a limit asks for more room, and at MaxInt a 1e12-vertex graph
// tried to allocate terabytes. At the ceilings a graph takes at most about
// 20 GiB while it is built, a mesh 8 GiB.
const (
	// CeilingMaxVertices bounds MaxVertices: 2^28 vertices per side (2 GiB
	// per CSR pointer array).
	CeilingMaxVertices = 1 << 28
	// CeilingMaxEdges bounds MaxEdges: 2^28 edges (about 20 GiB at the
	// peak of building a graph).
	CeilingMaxEdges = 1 << 28
	// CeilingMaxPairs bounds MaxPairs: 2^36 draws, about ten minutes.
	CeilingMaxPairs = 1 << 36
	// CeilingMaxUnits bounds MaxUnits: 2^30 units, 8 GiB of capacities.
	CeilingMaxUnits = 1 << 30
)

// Limits bounds the sizes that the constructors and decoders of this
// package accept, so that a declared size (a JSON field, a flag, a trace)
// can never exhaust memory, overflow int or run for hours. Sizes are
// checked with overflow-safe arithmetic before anything is allocated; a
// size above its limit gives an error wrapping ErrTooLarge that names the
// field, its value and the limit.
//
// A zero (or negative) field takes its default (DefaultMaxVertices, ...), so Limits{} is
// the default policy, which fits a 24 GiB machine comfortably; set a field
// to raise (or lower) one bound. The functions without a Limits receiver
// (NewGraph, Bernoulli, RightRegular, NewMesh, Mesh.Validate,
// Graph.UnmarshalJSON) use the defaults.
type Limits struct {
	MaxVertices int // per side of a graph: |L| and |R| [DefaultMaxVertices]
	MaxEdges    int // |E| of a graph [DefaultMaxEdges]
	MaxPairs    int // |L| × |R| for Complete and Bernoulli [DefaultMaxPairs]
	MaxUnits    int // Nodes × Slots of a mesh [DefaultMaxUnits]
	// MaxComponents bounds Σ_l |Q_l| of a GangModel [DefaultMaxComponents];
	// above CeilingMaxComponents it is an error.
	MaxComponents int
}

// DefaultLimits returns the default limits with every field set.
func DefaultLimits() Limits { return Limits{}.withDefaults() }

// Validate reports every field above its ceiling (CeilingMaxVertices,
// CeilingMaxEdges, CeilingMaxPairs, CeilingMaxUnits), joined with
// errors.Join, each wrapping ErrTooLarge and naming the field, its value
// and the ceiling. Zero and negative fields take their defaults and are
// valid. CheckGraph and CheckMesh, which every method of Limits calls
// first, call it.
func (lim Limits) Validate() error {
	var errs []error
	above := func(field string, v, ceiling int) {
		if v > ceiling {
			errs = append(errs, fmt.Errorf("%w: Limits.%s = %d above its ceiling %d", ErrTooLarge, field, v, ceiling))
		}
	}
	above("MaxVertices", lim.MaxVertices, CeilingMaxVertices)
	above("MaxEdges", lim.MaxEdges, CeilingMaxEdges)
	above("MaxPairs", lim.MaxPairs, CeilingMaxPairs)
	above("MaxUnits", lim.MaxUnits, CeilingMaxUnits)
	above("MaxComponents", lim.MaxComponents, CeilingMaxComponents)
	return errors.Join(errs...)
}

func (lim Limits) withDefaults() Limits {
	if lim.MaxVertices <= 0 {
		lim.MaxVertices = DefaultMaxVertices
	}
	if lim.MaxEdges <= 0 {
		lim.MaxEdges = DefaultMaxEdges
	}
	if lim.MaxPairs <= 0 {
		lim.MaxPairs = DefaultMaxPairs
	}
	if lim.MaxUnits <= 0 {
		lim.MaxUnits = DefaultMaxUnits
	}
	if lim.MaxComponents <= 0 {
		lim.MaxComponents = DefaultMaxComponents
	}
	return lim
}

// CheckGraph returns an error unless a graph with numLeft left vertices,
// numRight right vertices and numEdges edges is within lim: ErrDimension
// for a negative size, ErrEmpty for an empty side, ErrTooLarge above a
// limit. Packages that allocate per-vertex or per-edge tables call it (or
// build the graph, which calls it) before allocating.
func (lim Limits) CheckGraph(numLeft, numRight, numEdges int) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	lim = lim.withDefaults()
	if numLeft < 0 || numRight < 0 || numEdges < 0 {
		return fmt.Errorf("%w: numLeft=%d numRight=%d numEdges=%d, want >= 0", ErrDimension, numLeft, numRight, numEdges)
	}
	if numLeft == 0 || numRight == 0 {
		return fmt.Errorf("%w: numLeft=%d numRight=%d", ErrEmpty, numLeft, numRight)
	}
	if numLeft > lim.MaxVertices {
		return fmt.Errorf("%w: numLeft=%d, limit MaxVertices=%d", ErrTooLarge, numLeft, lim.MaxVertices)
	}
	if numRight > lim.MaxVertices {
		return fmt.Errorf("%w: numRight=%d, limit MaxVertices=%d", ErrTooLarge, numRight, lim.MaxVertices)
	}
	if numEdges > lim.MaxEdges {
		return fmt.Errorf("%w: numEdges=%d, limit MaxEdges=%d", ErrTooLarge, numEdges, lim.MaxEdges)
	}
	return nil
}

// checkPairs checks numLeft × numRight against MaxPairs (sizes already
// checked by CheckGraph).
func (lim Limits) checkPairs(numLeft, numRight int) error {
	lim = lim.withDefaults()
	if !checked.Within(lim.MaxPairs, numLeft, numRight) {
		return fmt.Errorf("%w: numLeft×numRight=%d×%d, limit MaxPairs=%d", ErrTooLarge, numLeft, numRight, lim.MaxPairs)
	}
	return nil
}

// CheckMesh returns an error unless a mesh of nodes × slots units is within
// lim: ErrEmpty for a non-positive size, ErrTooLarge when the product
// (computed without overflow) exceeds MaxUnits.
func (lim Limits) CheckMesh(nodes, slots int) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	lim = lim.withDefaults()
	if nodes <= 0 || slots <= 0 {
		return fmt.Errorf("%w: mesh nodes=%d slots=%d", ErrEmpty, nodes, slots)
	}
	if !checked.Within(lim.MaxUnits, nodes, slots) {
		return fmt.Errorf("%w: mesh nodes×slots=%d×%d, limit MaxUnits=%d", ErrTooLarge, nodes, slots, lim.MaxUnits)
	}
	return nil
}
