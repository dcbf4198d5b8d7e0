package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchRow and benchState stand for a policy's state: counters, a float
// vector, an int vector and per-job rows.
type benchRow struct {
	ID int       `json:"id"`
	W  []float64 `json:"w"`
}

type benchState struct {
	Slot int        `json:"slot"`
	Y    []float64  `json:"y"`
	N    []int64    `json:"n"`
	Rows []benchRow `json:"rows"`
}

// benchSnapshot returns a valid snapshot of about size bytes.
func benchSnapshot(tb testing.TB, size int) []byte {
	var st bytes.Buffer
	st.Grow(size + 1<<10)
	st.WriteString(`{"slot":123456,"y":[`)
	x := 0.123456789012345
	for i := 0; st.Len() < size/2; i++ {
		if i > 0 {
			st.WriteByte(',')
		}
		x = x*1.0000001 + 0.37
		st.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	}
	st.WriteString(`],"n":[`)
	for i := 0; st.Len() < 3*size/4; i++ {
		if i > 0 {
			st.WriteByte(',')
		}
		st.WriteString(strconv.Itoa(i * 7919))
	}
	st.WriteString(`],"rows":[`)
	for i := 0; st.Len() < size-64; i++ {
		if i > 0 {
			st.WriteByte(',')
		}
		fmt.Fprintf(&st, `{"id":%d,"w":[%g,%g,%g,0.25]}`, i, float64(i)/3, 1e-300, -float64(i))
	}
	st.WriteString(`]}`)
	sum, err := Checksum(st.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	env := []byte(`{"format":"msched/bench.P","version":1,"model":"0123456789abcdef","check":"` + sum + `","state":`)
	env = append(env, st.Bytes()...)
	return append(env, '}')
}

// deepSnapshot returns a snapshot whose state nests depth arrays.
func deepSnapshot(depth int) []byte {
	var st bytes.Buffer
	st.WriteString(`{"slot":1,"y":[],"n":[],"rows":[{"id":1,"w":`)
	for range depth {
		st.WriteByte('[')
	}
	for range depth {
		st.WriteByte(']')
	}
	st.WriteString(`}]}`)
	sum, _ := Checksum(st.Bytes())
	return []byte(`{"format":"msched/bench.P","version":1,"model":"0123456789abcdef","check":"` + sum + `","state":` + st.String() + `}`)
}

// peakHeap samples the live heap every millisecond while f runs and
// returns the largest value seen, and f's allocations.
func peakHeap(f func()) (peak, alloc uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	var mu sync.Mutex
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				metrics.Read(s)
				mu.Lock()
				if v := s[0].Value.Uint64(); v > peak {
					peak = v
				}
				mu.Unlock()
			}
		}
	}()
	f()
	close(stop)
	<-done
	runtime.ReadMemStats(&ms)
	if peak < base {
		peak = base
	}
	return peak - base, ms.TotalAlloc - before
}

// BenchmarkDecode measures Decode on valid snapshots of 1 MB and 64 MB
// (and 1 GiB = MaxBytes with MSCHED_BENCH_GIB=1: it needs about 4 GiB),
// and on 40 000 nested arrays. peak-MiB is the live heap above the
// snapshot itself, sampled every millisecond (a GC runs first); alloc-MiB
// all allocations of the last run; cpu-s/op the process's CPU time (user
// and system) per Decode, the figure to read on a loaded machine.
func BenchmarkDecode(b *testing.B) {
	sizes := []int{1 << 20, 64 << 20}
	if os.Getenv("MSCHED_BENCH_GIB") != "" {
		sizes = append(sizes, MaxBytes-1<<10)
	}
	for _, size := range sizes {
		data := benchSnapshot(b, size)
		b.Run(fmt.Sprintf("bytes=%d", len(data)), func(b *testing.B) {
			benchDecode(b, data, nil)
		})
	}
	data := deepSnapshot(40000)
	b.Run("depth=40000", func(b *testing.B) {
		benchDecode(b, data, ErrCorrupt)
	})
}

func benchDecode(b *testing.B, data []byte, want error) {
	b.SetBytes(int64(len(data)))
	var peak, alloc uint64
	var cpu float64
	for b.Loop() {
		var st benchState
		c0 := cpuSeconds()
		p, a := peakHeap(func() {
			err := Decode(data, "msched/bench.P", 1, "0123456789abcdef", &st)
			if (want == nil) != (err == nil) {
				b.Fatalf("Decode: %v", err)
			}
			if err != nil && testing.Verbose() {
				b.Log(err.Error()[:min(len(err.Error()), 200)])
			}
		})
		cpu += cpuSeconds() - c0
		peak = max(peak, p)
		alloc = a
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(alloc)/(1<<20), "alloc-MiB")
}

// TestBenchSnapshotDecodes keeps the benchmark's inputs honest.
func TestBenchSnapshotDecodes(t *testing.T) {
	data := benchSnapshot(t, 1<<16)
	var st benchState
	if err := Decode(data, "msched/bench.P", 1, "0123456789abcdef", &st); err != nil {
		t.Fatal(err)
	}
	var want struct {
		State benchState `json:"state"`
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(want.State) != fmt.Sprint(st) || len(st.Rows) == 0 {
		t.Fatal("decoded state differs from encoding/json's")
	}
}
