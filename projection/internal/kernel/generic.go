package kernel

import "math"

// Lanes is the state of one pass in 8 lanes: coordinate i is accumulated
// in lane i % 8. Piece fills Sum, Free, Left and Right; Piece0 also fills
// ZMax, Chk and UMin. Reduce combines the lanes.
type Lanes struct {
	Sum   [8]float64 // sum of u_i over capped and z_i over free coordinates
	Free  [8]int64   // number of free coordinates
	Left  [8]float64 // largest breakpoint at or left of t (-Inf if none)
	Right [8]float64 // smallest breakpoint right of t (+Inf if none)
	ZMax  [8]float64 // Piece0: largest z_i (-Inf if none)
	Chk   [8]float64 // Piece0: sum of (z_i-z_i)+(u_i-u_i), NaN iff a value is NaN or ±Inf
	UMin  [8]float64 // Piece0: min(0, smallest u_i)
}

// Reduce combines the lanes of a Piece pass: sum is
// ((Sum[0]+Sum[4])+(Sum[2]+Sum[6])) + ((Sum[1]+Sum[5])+(Sum[3]+Sum[7])),
// free the total count, left and right the extremes with -0 turned into +0.
func (l *Lanes) Reduce() (sum float64, free int, left, right float64) {
	s := &l.Sum
	sum = ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
	f := &l.Free
	free = int(((f[0] + f[4]) + (f[2] + f[6])) + ((f[1] + f[5]) + (f[3] + f[7])))
	// Branch-free trees (the builtins compile to MAXSD/MINSD sequences);
	// the lanes hold no NaN for valid input.
	a, b := &l.Left, &l.Right
	left = max(max(max(a[0], a[4]), max(a[2], a[6])), max(max(a[1], a[5]), max(a[3], a[7])))
	right = min(min(min(b[0], b[4]), min(b[2], b[6])), min(min(b[1], b[5]), min(b[3], b[7])))
	return sum, free, left + 0, right + 0
}

// Reduce0 combines the extra lanes of a Piece0 pass: the largest z (-0
// turned into +0, -Inf if z is empty) and whether every z_i and u_i is
// finite with u_i >= 0.
func (l *Lanes) Reduce0() (zmax float64, ok bool) {
	zmax = math.Inf(-1)
	chk := 0.0
	neg := false
	for j := range 8 {
		if l.ZMax[j] > zmax {
			zmax = l.ZMax[j]
		}
		chk += l.Chk[j]
		neg = neg || l.UMin[j] < 0
	}
	return zmax + 0, chk == 0 && !neg
}

const (
	allOnes = ^uint64(0)
	negInf  = 0xfff0000000000000 // bits of -Inf
	posInf  = 0x7ff0000000000000 // bits of +Inf
)

// initPiece sets the lanes of a Piece pass to their neutral values.
func (l *Lanes) initPiece() {
	l.Sum = [8]float64{}
	l.Free = [8]int64{}
	for j := range 8 {
		l.Left[j] = math.Inf(-1)
		l.Right[j] = math.Inf(1)
	}
}

// initPiece0 sets the lanes of a Piece0 pass to their neutral values.
func (l *Lanes) initPiece0() {
	l.initPiece()
	l.Chk = [8]float64{}
	l.UMin = [8]float64{}
	for j := range 8 {
		l.ZMax[j] = math.Inf(-1)
	}
}

// pieceGo adds coordinates from..len(z)-1 to the lanes of a Piece pass at
// t, branch-free: the class of each coordinate is a pair of masks and its
// contributions are selected with bitwise ands, exactly as the assembly
// does it lane by lane. Only the sums need their lanes (the order of
// floating-point additions matters); the count and the extremes are
// order-free and kept in single variables, folded into lane 0.
func pieceGo(l *Lanes, z, u []float64, t float64, from int) {
	u = u[:len(z)]
	s := l.Sum
	var m uint64
	left, right := math.Inf(-1), math.Inf(1)
	for i := from; i < len(z); i++ {
		z0, u0 := z[i], u[i]
		v0 := z0 - t
		var pos, below uint64
		if v0 > 0 {
			pos = allOnes
		}
		if v0 < u0 {
			below = allOnes
		}
		free := pos & below
		capped := pos &^ below
		zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
		s[i&7] += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
		m += free & 1
		if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
			left = x
		}
		if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
			right = x
		}
	}
	l.Sum = s
	l.Free[0] += int64(m)
	if left > l.Left[0] {
		l.Left[0] = left
	}
	if right < l.Right[0] {
		l.Right[0] = right
	}
}

// piece0Go adds coordinates from..len(z)-1 to the lanes of a Piece0 pass.
func piece0Go(l *Lanes, z, u []float64, from int) {
	u = u[:len(z)]
	for i := from; i < len(z); i++ {
		j := i & 7
		z0, u0 := z[i], u[i]
		l.Chk[j] += (z0 - z0) + (u0 - u0)
		if u0 < l.UMin[j] {
			l.UMin[j] = u0
		}
		if z0 > l.ZMax[j] {
			l.ZMax[j] = z0
		}
	}
	pieceGo(l, z, u, 0, from)
}

// clipGo sets dst[i] = min(max(z[i]-tau, 0), u[i]) for i >= from.
func clipGo(dst, z, u []float64, tau float64, from int) {
	u = u[:len(z)]
	dst = dst[:len(z)]
	for i := from; i < len(z); i++ {
		dst[i] = min(max(z[i]-tau, 0), u[i])
	}
}

// Piece sets l to the lanes of the linear piece of
// phi(x) = sum_i clip(z_i - x, 0, u_i) around t. It is
//
//	for i := range z {
//		j := i % 8
//		switch v := z[i] - t; {
//		case v > 0 && v < u[i]: // free
//			l.Sum[j] += z[i]
//			l.Free[j]++
//			l.Left[j] = max(l.Left[j], z[i]-u[i])
//			l.Right[j] = min(l.Right[j], z[i])
//		case v > 0: // capped
//			l.Sum[j] += u[i]
//			l.Right[j] = min(l.Right[j], z[i]-u[i])
//		default: // zero
//			l.Left[j] = max(l.Left[j], z[i])
//		}
//	}
//
// starting from Sum = Free = 0, Left = -Inf, Right = +Inf (max and min
// keep the old value on ties). On [left, right] (see Reduce)
// phi(x) = sum - free*x. Piece needs len(u) >= len(z) and finite z, u and
// t (other values give unspecified lanes, no panic); it allocates nothing.
func Piece(l *Lanes, z, u []float64, t float64) {
	u = u[:len(z)]
	n8 := len(z) &^ 7
	if useAsm && asmAll() {
		n8 = len(z)
	}
	if n8 > 0 && useAsm {
		pieceAsm(l, z[:n8], u[:n8], t)
	} else {
		l.initPiece()
		n8 = pieceGo8(l, z, u, t)
	}
	pieceGo(l, z, u, t, n8)
}

// Piece0 is Piece(l, z, u, 0) fused with the input check and max z: it
// also sets, for the same j,
//
//	l.Chk[j] += (z[i] - z[i]) + (u[i] - u[i]) // NaN iff a value is NaN or ±Inf
//	l.UMin[j] = min(l.UMin[j], u[i])           // starting from 0
//	l.ZMax[j] = max(l.ZMax[j], z[i])           // starting from -Inf
//
// (see Reduce0). Any finite or non-finite input is allowed; with a NaN or
// ±Inf the Piece lanes are unspecified. It needs len(u) >= len(z).
func Piece0(l *Lanes, z, u []float64) {
	u = u[:len(z)]
	n8 := len(z) &^ 7
	if useAsm && asmAll() {
		n8 = len(z)
	}
	if n8 > 0 && useAsm {
		piece0Asm(l, z[:n8], u[:n8])
	} else {
		l.initPiece0()
		n8 = piece0Go8(l, z, u)
	}
	piece0Go(l, z, u, n8)
}

// Clip is
//
//	for i := range z {
//		dst[i] = min(max(z[i]-tau, 0), u[i])
//	}
//
// for finite z and tau and u[i] >= 0 (the result is the same bit for bit,
// signed zeros included). It needs len(dst), len(u) >= len(z) and writes
// only dst[:len(z)].
func Clip(dst, z, u []float64, tau float64) {
	u = u[:len(z)]
	dst = dst[:len(z)]
	n8 := len(z) &^ 7
	if useAsm && asmAll() {
		n8 = len(z)
	}
	if n8 > 0 && useAsm {
		clipAsm(dst[:n8], z[:n8], u[:n8], tau)
	} else {
		n8 = 0
	}
	clipGo(dst, z, u, tau, n8)
}

// Impl names the implementation in use: "avx512", "avx2" (amd64 assembly,
// chosen at run time by CPU feature) or "go" (other architectures, or the
// build tags noasm or purego); "archsimd" (GOEXPERIMENT=simd builds only,
// never the default) when Use selected it.
func Impl() string { return implName }

// impl is one implementation of the kernels.
type impl struct {
	name  string
	ok    bool // this CPU runs it
	level int
	small int // see SmallBlock
	tiny  int // see TinyBlock
}

// use makes im the implementation of Piece, Piece0 and Clip (init; the
// tests switch between all those the CPU runs).
func use(im impl) {
	implName = im.name
	smallBlock = im.small
	tinyBlock = im.tiny
	level = im.level
	useAsm = im.level != levelGo
}

// Impls returns the names of the implementations this CPU and build run,
// fastest first; the last is "go".
func Impls() []string {
	var names []string
	for _, im := range impls {
		if im.ok {
			names = append(names, im.name)
		}
	}
	return names
}

// Use makes the named implementation the one the kernels run and reports
// whether it exists and this CPU runs it (otherwise nothing changes). It is
// for tests and benchmarks: it must not run concurrently with the kernels.
func Use(name string) bool {
	for _, im := range impls {
		if im.name == name && im.ok {
			use(im)
			return true
		}
	}
	return false
}

// smallBlock is SmallBlock's value for the implementation in use.
var smallBlock = 24

// SmallBlock returns the block size up to which projection.CappedSimplex
// sorts the breakpoints instead of running Newton passes with the
// implementation in use: the measured crossover, 8 with the assembly
// (AVX-512 or AVX2), 24 with the Go kernels.
func SmallBlock() int { return smallBlock }

// tinyBlock is TinyBlock's value for the implementation in use.
var tinyBlock = 0

// TinyBlock returns the block size up to which projection.CappedSimplex
// brackets the root with TinyBrackets instead of sorting: 8 with the
// assembly (AVX-512 or AVX2), where it is measured faster than the sort,
// 0 (never) with the Go kernels (whose TinyBrackets is no faster than the
// sort).
func TinyBlock() int { return tinyBlock }
