package trace

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadPods checks that any input gives pods or a *ParseError (or a
// wrapped sentinel), never a panic, and that accepted pods obey the checks.
func FuzzReadPods(f *testing.F) {
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\na,1000,1024,1,500,,LS,Running,10,20,10\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq,1,2,8,1000\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\nq,1,2,1,10,T4|G2\n"))
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
