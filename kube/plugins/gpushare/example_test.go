package gpushare_test

import (
	"fmt"

	"github.com/msched/msched/kube/plugins/gpushare"
)

// FGD scores a 0.2-GPU pod on a node whose GPU 0 has 0.7 free and GPU 1
// is whole, for a workload of 0.5-GPU pods: on GPU 0 the pod leaves 0.5
// free (still usable), on GPU 1 it would leave 0.7 and 0.8 (both usable),
// so neither choice fragments; FGD takes the first best GPU.
func ExampleFGD() {
	n, _ := gpushare.NewNode("n1", "T4", 32000, 65536, 2)
	half := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 500}
	small := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 300}
	_ = n.Assign(small, []int{0})
	w := gpushare.WorkloadOf([]gpushare.Request{half}, gpushare.Coverage)
	fgd := gpushare.NewScorer("FGD", w, nil)
	pod := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 200}
	score, ids := fgd.Score(n, pod)
	fmt.Println("frag before:", gpushare.FragAmount(n, w))
	fmt.Println("score:", score, "GPUs:", ids)
	// A 0.6-GPU pod strands 0.1 on GPU 0 (too small for a 0.5 pod) but
	// 0.4 on GPU 1: FGD takes GPU 0, score int(sigmoid(-100/1000)·100).
	score, ids = fgd.Score(n, gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 600})
	fmt.Println("score:", score, "GPUs:", ids)
	// Output:
	// frag before: 0
	// score: 50 GPUs: [0]
	// score: 47 GPUs: [0]
}

// The device model refuses a 1-GPU pod on a node whose GPUs each have 0.4
// free, though 3.2 GPUs are free in aggregate.
func ExampleNode_Fits() {
	n, _ := gpushare.NewNode("n1", "T4", 32000, 65536, 8)
	for i := range n.GPUs {
		_ = n.Assign(gpushare.Request{GPUCount: 1, GPUMilli: 600}, []int{i})
	}
	one := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 1000}
	fmt.Println(n.FreeGPUMilli(), n.Fits(one))
	// Output: 3200 false
}

// The workload is half 0.4-GPU and half 0.2-GPU pods; a 0.2-GPU pod
// arrives. On node a (one GPU, 0.7 free) it leaves 0.5, where both shapes
// still fit: FGD sees no fragmentation on either node and takes a, the
// first. Lookahead also places the next pod: on a's 0.5 a 0.4 pod would
// strand 0.1 and a 0.2 pod would leave 0.3, too small for a 0.4 pod, so
// a's expected fragmentation after the next pod is ½·100 + ½·150 = 125
// milli, against 75 before (V = 0.3 × these); on b (a whole GPU, 0.8
// left) any next pod leaves a usable rest. Lookahead takes b.
func ExampleLookahead() {
	a, _ := gpushare.NewNode("a", "T4", 32000, 65536, 1)
	_ = a.Assign(gpushare.Request{GPUCount: 1, GPUMilli: 300}, []int{0})
	b, _ := gpushare.NewNode("b", "T4", 32000, 65536, 1)
	w := gpushare.WorkloadOf([]gpushare.Request{
		{CPUMilli: 1000, GPUCount: 1, GPUMilli: 400},
		{CPUMilli: 1000, GPUCount: 1, GPUMilli: 200},
	}, gpushare.Coverage)
	pod := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 200}
	fgd := gpushare.NewScorer("FGD", w, nil)
	la := &gpushare.Lookahead{W: func() *gpushare.Workload { return w }, Gamma: gpushare.LookaheadGamma}
	for _, n := range []*gpushare.Node{a, b} {
		f, _ := fgd.Score(n, pod)
		l, _ := la.Score(n, pod)
		fmt.Printf("%s: F %v, NextFrag %v, FGD %d, Lookahead %d\n", n.Name, gpushare.FragAmount(n, w), gpushare.NextFrag(n, w), f, l)
	}
	// Output:
	// a: F 0, NextFrag 75, FGD 50, Lookahead 49
	// b: F 0, NextFrag 0, FGD 50, Lookahead 50
}
