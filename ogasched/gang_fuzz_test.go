package ogasched

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzGangDecide drives OGASched-gang on a small random instance with
// arbitrary arrivals (NaN, infinite, negative, huge values included):
// every call returns an error or a placement that GangModel.Check accepts,
// never a panic; a snapshot of the result restores.
func FuzzGangDecide(f *testing.F) {
	f.Add(uint64(1), []byte{1, 0, 1, 1, 0, 0, 0, 0})
	f.Add(uint64(7), []byte{0xff, 0xf8, 0, 0, 0, 0, 0, 1})
	f.Add(uint64(3), []byte("0123456789abcdef0123456789abcdef"))
	f.Fuzz(func(t *testing.T, seed uint64, data []byte) {
		cfg := DefaultGangConfig()
		cfg.Config.Ports, cfg.Config.Nodes, cfg.Config.EdgeProb = 1+int(seed%5), 1+int(seed%7), 0.5
		cfg.Config.Contention = 20
		in, err := GenerateGang(cfg, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			t.Fatal(err)
		}
		s := in.Settings()
		s.Seed = seed
		pol, err := NewGang(in.Model, s)
		if err != nil {
			t.Fatal(err)
		}
		defer pol.Close()
		J := in.Model.NumJobs()
		x := make([]float64, J)
		arr := make([]bool, J)
		for slot := 0; len(data) >= 8; slot++ {
			for l := range x {
				if len(data) < 8 {
					break
				}
				v := math.Float64frombits(binary.LittleEndian.Uint64(data))
				if len(data) > 0 && data[0]&1 == 0 {
					v = float64(data[1] & 1) // mostly 0/1 arrivals
				}
				x[l], data = v, data[8:]
			}
			d, err := pol.Decide(slot, x)
			if err != nil {
				continue
			}
			for l, v := range x {
				arr[l] = v > 0
			}
			chk, err := in.Model.Check(arr, d.Server)
			if err != nil || chk.Violations != 0 {
				t.Fatalf("slot %d: %v %s", slot, err, chk.First)
			}
			_ = pol.Observe(slot, x)
		}
		snap, err := pol.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		other, err := NewGang(in.Model, s)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if err := other.UnmarshalBinary(snap); err != nil {
			t.Fatal(err)
		}
	})
}
