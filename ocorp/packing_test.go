package ocorp

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// refFirstFit is a slow reference of Packer.FirstFit on an empty packer,
// written from its doc comment; it returns cores per (job index, machine).
func refFirstFit(ms []Machine, jobs []ActiveJob, priority, want []int) map[[2]int]int {
	srv := make([]int, 0, len(ms))
	for len(srv) < len(ms) { // selection: largest cores first, ties by index
		b := -1
		for i := range ms {
			taken := false
			for _, s := range srv {
				taken = taken || s == i
			}
			if !taken && (b < 0 || ms[i].Cores > ms[b].Cores) {
				b = i
			}
		}
		srv = append(srv, b)
	}
	fc := make([]int, len(ms))
	fm := make([]int, len(ms))
	for i, m := range ms {
		fc[i], fm[i] = m.Cores, m.Memory
	}
	out := map[[2]int]int{}
	for _, j := range priority {
		u, m := want[j], jobs[j].Memory
		if u <= 0 {
			continue
		}
		placed := false
		for _, i := range srv {
			if !placed && fc[i] >= u && fm[i] >= m {
				out[[2]int{j, i}], fc[i], fm[i], placed = u, fc[i]-u, fm[i]-m, true
			}
		}
		ever := false
		for _, s := range ms {
			ever = ever || (s.Cores >= u && s.Memory >= m)
		}
		if placed || ever {
			continue
		}
		for _, i := range srv {
			if u > 0 && fc[i] > 0 && fm[i] >= m {
				c := min(u, fc[i])
				out[[2]int{j, i}], fc[i], fm[i], u = c, fc[i]-c, fm[i]-m, u-c
			}
		}
	}
	return out
}

// TestPackerFirstFit compares Packer.FirstFit with the reference on
// random instances (equal machine sizes, oversized jobs, priority lists
// that omit jobs) and checks cores and memory per machine.
func TestPackerFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 10))
	for it := range 3000 {
		ms := make([]Machine, 1+rng.IntN(4))
		for i := range ms {
			ms[i] = Machine{Cores: 1 + rng.IntN(6), Memory: rng.IntN(10)}
		}
		n := 1 + rng.IntN(10)
		jobs := make([]ActiveJob, n)
		want := make([]int, n)
		for k := range jobs {
			jobs[k] = ActiveJob{ID: k, Job: Job{Cores: 1 + rng.IntN(9), Memory: rng.IntN(10), Processing: 2}}
			jobs[k].Remaining = jobs[k].Volume()
			want[k] = rng.IntN(jobs[k].Cores + 1)
		}
		prio := rng.Perm(n)[:1+rng.IntN(n)]
		pk, err := NewPacker(ms)
		require.NoError(t, err)
		require.NoError(t, pk.Reset(jobs))
		pk.FirstFit(prio, want)
		got := map[[2]int]int{}
		cores := make([]int, len(ms))
		mem := make([]int, len(ms))
		for _, p := range pk.place {
			got[[2]int{p.Job, p.Machine}] += p.Cores
			cores[p.Machine] += p.Cores
			mem[p.Machine] += jobs[p.Job].Memory
		}
		for i, m := range ms {
			require.LessOrEqual(t, cores[i], m.Cores)
			require.LessOrEqual(t, mem[i], m.Memory)
		}
		require.Equal(t, refFirstFit(ms, jobs, prio, want), got, "it %d", it)
	}
}

// TestMFirstFitFeasible runs OCORP+M with PackFirstFit (printed rule and
// Fill) through Run, which checks (4b)-(4f) on every slot.
func TestMFirstFitFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 11))
	for it := range 30 {
		jobs, ms := randomInstance(rng, 6+rng.IntN(20), 1+rng.IntN(3), true)
		g, err := Gamma(jobs, ms)
		require.NoError(t, err)
		for _, fill := range []bool{false, true} {
			p, err := NewM(ms, Settings{Gamma: g, Fill: fill, Packing: PackFirstFit})
			require.NoError(t, err)
			_, err = runOne(jobs, ms, p, RunSettings{NoSeries: true})
			require.NoError(t, err, "it %d fill %v", it, fill)
		}
	}
}

// TestMPackingSettings: an unknown Packing is a settings error, and a
// snapshot does not restore into OCORP+M with another packing.
func TestMPackingSettings(t *testing.T) {
	ms := []Machine{{Cores: 4, Memory: 8}}
	_, err := NewM(ms, Settings{Packing: 7})
	require.True(t, errors.Is(err, ErrSettings), "%v", err)
	require.Equal(t, "first-fit", PackFirstFit.String())
	require.Equal(t, "Packing(7)", Packing(7).String())
	a, _ := NewM(ms, Settings{})
	b, _ := NewM(ms, Settings{Packing: PackFirstFit})
	c, _ := NewM(ms, Settings{Packing: PackFirstFit})
	sa, err := a.MarshalBinary()
	require.NoError(t, err)
	sb, err := b.MarshalBinary()
	require.NoError(t, err)
	require.ErrorIs(t, b.UnmarshalBinary(sa), ErrSnapshot)
	require.ErrorIs(t, a.UnmarshalBinary(sb), ErrSnapshot)
	require.NoError(t, c.UnmarshalBinary(sb))
}

// TestPackerWantAboveDemand: issue 30. Pack, Fill and FirstFit trusted
// want and gave a job more than its d_j cores when asked, while Add
// refused the same placement. A want above d_j now counts as d_j in all
// four: every job gets at most d_j cores, the decision passes the Checker,
// and the result equals that of want capped at d_j by the caller.
func TestPackerWantAboveDemand(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 5))
	ops := map[string]func(p *Packer, prio, want []int){
		"Pack":       func(p *Packer, prio, want []int) { p.Pack(prio, want, false) },
		"Pack-nomem": func(p *Packer, prio, want []int) { p.Pack(prio, want, true) },
		"Fill":       func(p *Packer, prio, want []int) { p.Fill(prio, want, false) },
		"FirstFit":   func(p *Packer, prio, want []int) { p.FirstFit(prio, want) },
	}
	for it := range 500 {
		ms := make([]Machine, 1+rng.IntN(4))
		for i := range ms {
			ms[i] = Machine{Cores: 1 + rng.IntN(12), Memory: 20}
		}
		n := 1 + rng.IntN(6)
		jobs := make([]ActiveJob, n)
		want := make([]int, n)
		capped := make([]int, n)
		for k := range jobs {
			jobs[k] = ActiveJob{ID: 10 * k, Job: Job{Cores: 1 + rng.IntN(4), Memory: rng.IntN(5), Processing: 2}}
			jobs[k].Remaining = jobs[k].Volume()
			want[k] = jobs[k].Cores + rng.IntN(20)
			capped[k] = jobs[k].Cores
		}
		prio := rng.Perm(n)
		for name, op := range ops {
			pk, err := NewPacker(ms)
			require.NoError(t, err)
			require.NoError(t, pk.Reset(jobs))
			op(pk, prio, want)
			for k, g := range pk.Got() {
				require.LessOrEqual(t, g, jobs[k].Cores, "%s it %d: job %d got %d cores, d_j = %d (want %d)", name, it, k, g, jobs[k].Cores, want[k])
			}
			d := Decision{Placements: pk.Placements()}
			chk, err := NewChecker(ms)
			require.NoError(t, err)
			if name != "Pack-nomem" {
				require.NoError(t, chk.Check(Obs{Jobs: jobs}, d), "%s it %d", name, it)
			}
			ref, _ := NewPacker(ms)
			require.NoError(t, ref.Reset(jobs))
			op(ref, prio, capped)
			require.Equal(t, ref.Placements(), pk.Placements(), "%s it %d", name, it)
		}
	}
}
