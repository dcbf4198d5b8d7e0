package onsocmax_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/internal/snapshottest"
	"github.com/msched/msched/onsocmax"
)

// BenchmarkRestoreHugeRefused: issue 30. A resealed 61.5 MB Policy
// snapshot (1.3 million reservations, one job's units repeated) took 52 s
// of CPU and 8.5 GiB of allocations to be refused. It is refused here
// after the strict decode and the family's checks.
func BenchmarkRestoreHugeRefused(b *testing.B) {
	in, err := onsocmax.Generate(onsocmax.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	iota, v, _ := in.MarginalBounds(0)
	pol, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: iota, V: v})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := pol.Decide(0, in.Jobs[:1]); err != nil {
		b.Fatal(err)
	}
	data, err := pol.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	big := snapshottest.Edit(b, data, func(st map[string]any) {
		rs := st["reservations"].([]any)
		for k := 0; len(rs) < 1300000; k++ {
			rs = append(rs, map[string]any{"job": json.Number("7"), "node": json.Number("0"), "slot": json.Number("1"), "x": json.Number("0.123456789012")})
		}
		st["reservations"] = rs
	})
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for b.Loop() {
		err := pol.UnmarshalBinary(big)
		if !errors.Is(err, snapshot.ErrCorrupt) {
			b.Fatalf("want a refusal, got %v", err)
		}
	}
	b.ReportMetric(float64(len(big))/1e6, "MB")
}
