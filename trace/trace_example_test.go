package trace_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/msched/msched/trace"
)

const nodesCSV = `sn,cpu_milli,memory_mib,gpu,model
n0,32000,262144,0,
n1,96000,393216,8,G2
n2,16000,65536,1,V100M16
`

const podsCSV = `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
p0,12000,16384,1,1000,,LS,Running,0,1200,0
p1,6000,12288,1,460,,LS,Running,100,900,150
p2,12000,16384,1,1000,V100M16|V100M32,LS,Running,100,1000,100
p3,6000,12288,1,460,,BE,Failed,400,500,420
`

func ExampleReadPods() {
	pods, err := trace.ReadPods(strings.NewReader(podsCSV), "pods.csv")
	if err != nil {
		panic(err)
	}
	for _, p := range pods {
		fmt.Printf("%s: %d mCPU, %.2f GPU, spec %v, ran %d s\n", p.Name, p.CPUMilli, p.GPU(), p.GPUSpec, p.Duration())
	}
	// Output:
	// p0: 12000 mCPU, 1.00 GPU, spec [], ran 1200 s
	// p1: 6000 mCPU, 0.46 GPU, spec [], ran 750 s
	// p2: 12000 mCPU, 1.00 GPU, spec [V100M16 V100M32], ran 900 s
	// p3: 6000 mCPU, 0.46 GPU, spec [], ran 80 s
}

func ExampleParseError() {
	bad := "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nq0,12000,16384,1,1000\nq1,6000,-5,1,460\n"
	_, err := trace.ReadPods(strings.NewReader(bad), "pods.csv")
	var pe *trace.ParseError
	fmt.Println(errors.As(err, &pe), errors.Is(err, trace.ErrValue), pe.Line, pe.Column)
	fmt.Println(err)
	// Output:
	// true true 3 memory_mib
	// pods.csv:3: column memory_mib: value "-5": trace: bad value: outside [0, 1099511627776]
}

func ExampleJobTypes() {
	pods, _ := trace.ReadPods(strings.NewReader(podsCSV), "pods.csv")
	nodes, _ := trace.ReadNodes(strings.NewReader(nodesCSV), "nodes.csv")
	for _, jt := range trace.JobTypes(pods, 0) {
		var fits []string
		for _, n := range nodes {
			if jt.Fits(n) {
				fits = append(fits, n.Name)
			}
		}
		fmt.Printf("%d mCPU %d mGPU %v: pods %v, fits %v\n", jt.CPUMilli, jt.GPUMilli, jt.Spec, jt.Pods, fits)
	}
	// Output:
	// 6000 mCPU 460 mGPU []: pods [1 3], fits [n1 n2]
	// 12000 mCPU 1000 mGPU []: pods [0], fits [n1 n2]
	// 12000 mCPU 1000 mGPU [V100M16 V100M32]: pods [2], fits [n2]
}

func ExampleOGASched() {
	pods, _ := trace.ReadPods(strings.NewReader(podsCSV), "pods.csv")
	nodes, _ := trace.ReadNodes(strings.NewReader(nodesCSV), "nodes.csv")
	inst, err := trace.OGASched(&trace.Trace{Nodes: nodes, Pods: pods}, trace.OGASchedSettings{Ports: 2, Nodes: -1, T: 4})
	if err != nil {
		panic(err)
	}
	p := inst.Problem
	fmt.Printf("%d ports x %d nodes, %d edges, slot %.0f s\n", p.NumPorts(), p.NumNodes(), p.Graph.NumEdges(), inst.SlotSeconds)
	fmt.Println("demand of port 0 (cores, 4 GiB, GPUs):", p.Demand[0])
	// The creation span 0..400 s is cut into 4 slots of 100.25 s: port 0
	// (6 cores) arrives at 100 and 400 s, port 1 (12 cores) at 0 s.
	fmt.Println("arrivals:", inst.Arrivals.Arrivals)
	// Output:
	// 2 ports x 3 nodes, 4 edges, slot 100 s
	// demand of port 0 (cores, 4 GiB, GPUs): [6 3 0.46]
	// arrivals: [[1 1] [0 0] [0 0] [1 0]]
}
