package projection

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// paperStats compares CappedSimplexPaper with the exact projection.
type paperStats struct {
	cases      int
	differ     int     // ||y_paper - y_exact||_inf > 1e-9
	maxDist    float64 // max ||y_paper - y_exact||_inf
	sumDist    float64
	infeasible int     // a bound or the sum violated by more than 1e-9
	maxViol    float64 // largest violation of a bound or of the sum
	overfill   int     // sum y_paper > sum y_exact + 1e-9 (fills slack capacity)
}

func (s paperStats) String() string {
	return fmt.Sprintf("%7d | %6.2f%% | %9.3g | %9.3g | %6.2f%% | %9.3g | %6.2f%%",
		s.cases, 100*float64(s.differ)/float64(s.cases), s.maxDist,
		s.sumDist/float64(s.cases), 100*float64(s.infeasible)/float64(s.cases),
		s.maxViol, 100*float64(s.overfill)/float64(s.cases))
}

func measurePaper(rng *rand.Rand, cases int, gen func(*rand.Rand) instance, literal bool) paperStats {
	var st paperStats
	for range cases {
		in := gen(rng)
		n := len(in.z)
		ye := make([]float64, n)
		yp := make([]float64, n)
		CappedSimplex(ye, in.z, in.u, in.c)
		paperProject(yp, in.z, in.u, in.c, literal)
		d, se, sp := 0.0, 0.0, 0.0
		infeasible := false
		for i := range n {
			d = math.Max(d, math.Abs(yp[i]-ye[i]))
			v := math.Max(-yp[i], yp[i]-in.u[i])
			st.maxViol = math.Max(st.maxViol, v)
			if v > 1e-9 {
				infeasible = true
			}
			se += ye[i]
			sp += yp[i]
		}
		st.maxViol = math.Max(st.maxViol, sp-in.c)
		if sp > in.c+1e-9 {
			infeasible = true
		}
		st.cases++
		if d > 1e-9 {
			st.differ++
		}
		st.maxDist = math.Max(st.maxDist, d)
		st.sumDist += d
		if infeasible {
			st.infeasible++
		}
		if sp > se+1e-9 {
			st.overfill++
		}
	}
	return st
}

// Instance families for the measurement; all have unit-scale data.
var paperFamilies = []struct {
	name string
	gen  func(*rand.Rand) instance
}{
	{"uniform: n~U{2..20}, z~U[-0.5,1.5], u~U[0.5,1.5], c~U[0,sum u]", func(rng *rand.Rand) instance {
		return unitInstance(rng, 2+rng.IntN(19), func(su float64) float64 { return su * rng.Float64() })
	}},
	{"binding: n=10, c = sum u / 4", func(rng *rand.Rand) instance {
		return unitInstance(rng, 10, func(su float64) float64 { return su / 4 })
	}},
	{"slack: n=10, c = sum u", func(rng *rand.Rand) instance {
		return unitInstance(rng, 10, func(su float64) float64 { return su })
	}},
	{"OGASched step: n=10, y=proj, z=y+0.5g, g~U[-0.2,1], c=sum u/4", func(rng *rand.Rand) instance {
		in := unitInstance(rng, 10, func(su float64) float64 { return su / 4 })
		y := make([]float64, len(in.z))
		CappedSimplex(y, in.z, in.u, in.c)
		for i := range y {
			in.z[i] = y[i] + 0.5*(1.2*rng.Float64()-0.2)
		}
		return in
	}},
}

func unitInstance(rng *rand.Rand, n int, capacity func(sumU float64) float64) instance {
	z := make([]float64, n)
	u := make([]float64, n)
	su := 0.0
	for i := range n {
		z[i] = 2*rng.Float64() - 0.5
		u[i] = 0.5 + rng.Float64()
		su += u[i]
	}
	return instance{z, u, capacity(su)}
}

// TestPaperVariantMeasured measures how far the paper's Algorithm 1 inner
// procedure is from the exact projection (the table in doc.go) and checks
// what is certain: the exact projection satisfies KKT on the hand-made
// instances where the paper's procedure provably differs.
func TestPaperVariantMeasured(t *testing.T) {
	// Slack capacity: exact y = z; (38) gives rho < 0 and fills c.
	// Second port's bound: only the largest z is capped, y_2 > u_2.
	for _, tc := range []struct {
		in        instance
		exact     []float64
		paper     []float64
		paperTau  float64
		infeasble bool
	}{
		{instance{[]float64{0.1, 0.1}, []float64{1, 1}, 1}, []float64{0.1, 0.1}, []float64{0.5, 0.5}, -0.4, false},
		{instance{[]float64{3, 2}, []float64{10, 0.2}, 2}, []float64{1.8, 0.2}, []float64{1.5, 0.5}, 1.5, true},
		{instance{[]float64{2}, []float64{1}, 3}, []float64{1}, []float64{1}, 0, false},
	} {
		ye := make([]float64, len(tc.in.z))
		yp := make([]float64, len(tc.in.z))
		tau := CappedSimplex(ye, tc.in.z, tc.in.u, tc.in.c)
		if msg := checkKKT(tc.in, ye, tau, 1e-12); msg != "" {
			t.Fatalf("%v: exact: %s", tc.in, msg)
		}
		pt := CappedSimplexPaper(yp, tc.in.z, tc.in.u, tc.in.c)
		for i := range ye {
			if math.Abs(ye[i]-tc.exact[i]) > 1e-12 || math.Abs(yp[i]-tc.paper[i]) > 1e-12 {
				t.Fatalf("%v: exact %v paper %v, want %v and %v", tc.in, ye, yp, tc.exact, tc.paper)
			}
		}
		if math.Abs(pt-tc.paperTau) > 1e-12 {
			t.Fatalf("%v: paper tau %v, want %v", tc.in, pt, tc.paperTau)
		}
	}

	cases := 20000
	if testing.Short() {
		cases = 2000
	}
	var b strings.Builder
	b.WriteString("\nfamily | variant | cases | differ | max dist | mean dist | infeasible | max violation | overfills slack\n")
	for _, f := range paperFamilies {
		for _, literal := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(9, 9))
			st := measurePaper(rng, cases, f.gen, literal)
			v := "B2=0"
			if literal {
				v = "literal"
			}
			fmt.Fprintf(&b, "%s | %s | %v\n", f.name, v, st)
			if f.name[:5] == "slack" && st.differ == 0 {
				t.Errorf("%s: the paper's procedure should overfill slack capacity", f.name)
			}
		}
	}
	t.Log(b.String())
}

// TestPaperVariantIsExactWhenItShouldBe: with all bounds inactive and the
// capacity binding, (35)-(38) is Michelot's exact simplex projection.
func TestPaperVariantIsExactWhenItShouldBe(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for k := range 5000 {
		n := 1 + rng.IntN(30)
		z := make([]float64, n)
		u := make([]float64, n)
		sz := 0.0
		for i := range z {
			z[i] = rng.Float64()
			u[i] = 100
			sz += z[i]
		}
		c := sz * rng.Float64()
		ye := make([]float64, n)
		yp := make([]float64, n)
		te := CappedSimplex(ye, z, u, c)
		tp := CappedSimplexPaper(yp, z, u, c)
		if math.Abs(te-tp) > 1e-12 {
			t.Fatalf("case %d: tau exact %v paper %v", k, te, tp)
		}
		for i := range ye {
			if math.Abs(ye[i]-yp[i]) > 1e-12 {
				t.Fatalf("case %d: y[%d] exact %v paper %v", k, i, ye[i], yp[i])
			}
		}
	}
}

// TestNewtonPasses logs how many Newton passes (after pass 0) CappedSimplex
// needs (the numbers quoted in doc.go) and checks none needs the bisection
// fallback on random data.
func TestNewtonPasses(t *testing.T) {
	defer func() { passCounter = nil }()
	rng := rand.New(rand.NewPCG(11, 11))
	sizes := []int{64, 1 << 10, 1 << 16}
	if !testing.Short() {
		sizes = append(sizes, 1<<20)
	}
	for _, n := range sizes {
		reps := max(3, (1<<18)/n)
		total, most := 0, 0
		for range reps {
			in := unitInstance(rng, n, func(su float64) float64 { return su * rng.Float64() / 2 })
			cnt := 0
			passCounter = &cnt
			y := make([]float64, n)
			CappedSimplex(y, in.z, in.u, in.c)
			total += cnt
			most = max(most, cnt)
		}
		t.Logf("n = %7d: %d instances, mean %.2f, max %d Newton passes", n, reps, float64(total)/float64(reps), most)
		if most > 20 {
			t.Errorf("n = %d: %d passes", n, most)
		}
	}
}
