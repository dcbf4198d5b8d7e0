package trace_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/msched/msched/trace"
)

// Extreme values are errors that name the pod, the field, the value and
// the limit, whether they come from a file or from a Trace built in code;
// Limits raises a bound where a trace needs more.
func ExampleLimits() {
	_, err := trace.ReadPods(strings.NewReader("name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time,deletion_time\n"+
		"a,1000,1024,0,0,0,9223372036854775807\n"), "pods.csv")
	fmt.Println(err)

	nodes, _ := trace.ReadNodes(strings.NewReader(nodesCSV), "nodes.csv")
	tr := &trace.Trace{PodFile: "code", Nodes: nodes, Pods: []trace.Pod{
		{Name: "a", CPUMilli: 1000, MemoryMiB: 1024, HasTimes: true, Creation: 0, Deletion: 10, Scheduled: 0},
		{Name: "b", CPUMilli: 1000, MemoryMiB: 1024, HasTimes: true, Creation: math.MaxInt64, Deletion: math.MaxInt64, Scheduled: -1},
	}}
	_, err = trace.OCORP(tr, trace.OCORPSettings{})
	fmt.Println(err)

	tr.Pods[1].Creation, tr.Pods[1].Deletion, tr.Pods[1].Scheduled = 1e13, 1e13, 1e13
	_, err = trace.OCORP(tr, trace.OCORPSettings{Limits: trace.Limits{MaxTime: 1e15}})
	fmt.Println(err)
	// Output:
	// pods.csv:2: column deletion_time: value "9223372036854775807": trace: above limit: 9223372036854775807 above MaxTime = 1099511627776
	// trace: above limit: pod 1 ("b"): creation_time = 9223372036854775807, want <= MaxTime = 1099511627776
	// trace: above limit: OCORP: timed pod 1 ("b"): arrival + processing = 16666666666 + 1 slots of 600 s, limit MaxSlots = 4194304 (a simulator would step through every slot)
}
