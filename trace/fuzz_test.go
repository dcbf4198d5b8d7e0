package trace

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// FuzzReadPods checks that any input gives pods or a *ParseError (or a
// wrapped sentinel), never a panic, and that accepted pods obey the checks.
func FuzzReadPods(f *testing.F) {
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\na,1000,1024,1,500,,LS,Running,10,20,10\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq,1,2,8,1000\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\nq,1,2,1,10,T4|G2\n"))
	f.Add([]byte("\ufeffname,cpu_milli,memory_mib,num_gpu,gpu_milli,name\nq,1,2,1,10,r\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\na,1,1,0,0,0,10\nb,1,1,0,0,9223372036854775807,9223372036854775807\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pods, err := ReadPods(bytes.NewReader(b), "f.csv")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) && !errors.Is(err, ErrHeader) {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		for _, p := range pods {
			if p.CPUMilli < 0 || p.MemoryMiB < 0 || p.NumGPU < 0 || p.GPUMilli < 0 || p.GPUMilli > 1000 ||
				(p.HasTimes && p.Deletion < p.Creation) || p.Name == "" {
				t.Fatalf("accepted bad pod %+v", p)
			}
		}
	})
}

// FuzzReadNodes is FuzzReadPods for node lists.
func FuzzReadNodes(f *testing.F) {
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,393216,8,G2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		nodes, err := ReadNodes(bytes.NewReader(b), "f.csv")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without location: %v", err)
			}
			return
		}
		for _, n := range nodes {
			if n.CPUMilli < 0 || n.MemoryMiB < 0 || n.GPU < 0 || (n.GPU > 0 && n.Model == "") {
				t.Fatalf("accepted bad node %+v", n)
			}
		}
	})
}

// FuzzMappings builds a two-pod trace with arbitrary timestamps and
// resources on the fixture's nodes and runs every mapping: each returns an
// instance or an error, never a panic, a hang or a huge allocation.
func FuzzMappings(f *testing.F) {
	f.Add(int64(0), int64(10), int64(math.MaxInt64), int64(0), int64(1000), int64(600))
	f.Add(int64(0), int64(10), int64(math.MaxInt64), int64(math.MaxInt64), int64(1000), int64(1))
	f.Add(int64(0), int64(10), int64(1e15), int64(1e15), int64(1000), int64(0))
	f.Add(int64(0), int64(0), int64(DefaultMaxTime), int64(DefaultMaxTime), int64(math.MaxInt64), int64(math.MaxInt64))
	f.Add(int64(-1), int64(5), int64(3), int64(2), int64(-7), int64(-1))
	f.Fuzz(func(t *testing.T, c0, d0, c1, d1, cpu, slot int64) {
		tr := readFixture(t)
		tr.Pods = []Pod{
			{Name: "a", CPUMilli: cpu, MemoryMiB: 1024, HasTimes: true, Creation: c0, Deletion: d0, Scheduled: c0},
			{Name: "b", CPUMilli: 1000, MemoryMiB: 1024, HasTimes: true, Creation: c1, Deletion: d1, Scheduled: -1},
		}
		// The default time bound, and every bound raised to its ceiling.
		for _, lim := range []Limits{
			{MaxSlots: 1 << 16, MaxCells: 1 << 20},
			{MaxSlots: 1 << 16, MaxCells: 1 << 20, MaxTime: CeilingMaxTime, MaxResource: CeilingMaxResource, MaxRows: CeilingMaxRows},
		} {
			_, _ = OGASched(tr, OGASchedSettings{T: int(slot % (1 << 17)), Limits: lim})
			_, _ = ESDP(tr, ESDPSettings{T: int(slot % (1 << 17)), Limits: lim})
			_, _ = OnSocMax(tr, OnSocMaxSettings{SlotSeconds: slot, Slots: int(slot % 100), Limits: lim})
			_, _ = OCORP(tr, OCORPSettings{SlotSeconds: slot, Machines: -1, Limits: lim})
		}
	})
}
