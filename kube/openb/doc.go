// Package openb replays the Alibaba OpenB GPU trace through the real
// kube-scheduler (k8s.io/kubernetes/pkg/scheduler), in process, to compare
// scheduler profiles on the same workload.
//
// # Setup
//
// The scheduler is the upstream one, built by scheduler.New with a fake
// clientset (k8s.io/client-go/kubernetes/fake) and its informers, as
// Kubernetes' own scheduler tests build it, by the replay harness shared
// with package dlrm (kube/internal/replay); the profile is decoded from
// KubeSchedulerConfiguration YAML by the binary's own loader
// (options.LoadConfigFromFile), so defaults and plugin args go through the
// same code as in a cluster. Options.SchedulerConfig replaces the
// profile's YAML by any configuration, Options.Registry adds plugins,
// Options.NodeObject and PodObject change the API objects, Options.Admit
// and AfterBind hook the binding, Options.OnStep samples after each step. The API server's binding subresource is a
// reactor on the fake clientset that checks, independently of the
// scheduler, that the pod fits the node's allocatable (CPU, memory, GPU)
// given the pods already bound there, refuses the binding otherwise (the
// scheduler then retries the pod) and counts the refusal, and sets
// spec.nodeName.
//
// Nodes are the trace's nodes: allocatable cpu and memory from the node
// list, GPUs as the extended resource alibabacloud.com/gpu-milli (1000 per
// GPU) and the GPU model as the label msched.io/gpu-model. Pods are the
// trace's pods with times, in creation order: requests (and limits) of cpu,
// memory and gpu-milli (num_gpu x gpu_milli), and a required node affinity
// on the GPU model when the pod has a gpu_spec. Kubernetes has no per-GPU
// device model without DRA, so GPUs are counted per node in aggregate: a
// 0.5-GPU pod and a 0.6-GPU pod may share a 2-GPU node's 2000 milli, which
// the real cluster would place on two GPUs.
//
// # Time
//
// Time is simulated and compressed: the loop advances in steps of
// Options.StepSeconds trace seconds; at each step it deletes the pods that
// completed (bound for their trace duration, deletion - scheduled) and the
// pending pods whose trace deletion time passed (they give up), creates the
// pods created during the step, then waits until the scheduler is idle
// (queue empty but for unschedulable pods, nothing in flight, its cache
// holding exactly the bound pods) and samples the cluster. Pods bound in a
// step start running at the end of that step. Backoff is 0 so that retries
// do not wait for wall-clock time. The msched plugins' slot clock is the
// simulated clock (ogasched.FactoryWithClock).
//
// # Measures
//
// Per sample: running and pending pods, the allocated share of the
// cluster's CPU, memory and GPU, and GPU fragmentation in the sense of the
// FGD paper (Weng et al., USENIX ATC'23) on this trace: the idle GPU
// capacity of a node counts as fragmented for a GPU request shape that
// cannot run there now; the fragmented GPUs are the expectation over the
// workload's 20 most frequent GPU shapes, and GPUFrag is their share of
// the idle GPUs. The run stops after the last arrival's step.
//
// Ties between equally scored nodes are not broken at random: in v1.37
// the scheduler sets NodePluginScores.Randomizer only for nodes scored by
// extenders (there are none here), so among equal totals the score heap
// yields a node that depends on the order the nodes were filtered in,
// which starts at a rotating index (nextStartNodeIndex). Two runs of the
// same profile still differ slightly, because that order and the
// scheduler's informer and binding goroutines interleave differently.
//
// With the msched plugins, learning runs off the scheduling path (see
// package plugins): a slot's step is published asynchronously, so the
// first pods after a slot boundary may still be scored with the previous
// slot's scores. The OGASched profile keeps no state (stateStore None)
// unless Options.StatePath is set. The ESDP profile's slots run on the
// wall clock (slotSeconds 5; plugins/esdp has no clock option), and it
// learns from finished pods, which the replay never reports, so it scores
// by exploration alone. The Gang profile adds plugins/gang, which skips
// OpenB's pods (no pod-group label): it measures the plugin's overhead;
// package dlrm replays real gangs.
//
// # Throughput
//
// Run times every scheduling algorithm run (Scheduler.SchedulePod, a
// public field it wraps: PreFilter, Filter, PreScore, Score and the node
// choice of one pod, retries included) into Result.Cycles, and sums the
// wall time from each step's first creation to the scheduler being idle
// into Result.Busy. Throughput runs the profiles in one process,
// interleaved (the order rotated each round), on the same pods and nodes,
// and reports each profile's pods/s (Scheduled/Busy) and p99 cycle as
// ratios to the first profile's in the same rounds: the median over
// rounds of the per-round ratio, so a drift in the machine's load moves
// both sides of a ratio. Busy includes the pod creations and the idle
// check, the same for every profile.
//
// # Timing of the harness
//
// Since the shared harness (2026-11-28), the idle check is woken by the
// scheduler's events instead of sleeping 200 µs between polls and needs
// two idle observations in a row instead of three, and pods are created
// straight in the fake API server's object store, paced on the
// informer's event counts (the old loop did not pace, and a burst could
// overflow the fake watch channel on a slow machine). The scheduler, its
// configuration and the order of arrivals are unchanged, so results are
// comparable with earlier runs up to the run-to-run noise described above;
// wall and busy times are shorter (less harness work per pod and per
// step), and pods/s are higher for every profile alike.
//
// # FGD protocol
//
// RunFGD (openb-compare -protocol fgd) is FGD's artifact protocol (Weng
// et al., USENIX ATC'23; hkust-adsl/kubernetes-scheduler-simulator) on
// the GPU device model of kube/plugins/gpushare, beside the replay above:
//
//   - the trace's GPU nodes only (1 213 nodes, 6 212 GPUs), by name;
//   - per seed (42–51) the pods are shuffled, then pods drawn uniformly
//     with replacement from the trace are appended until the arrived GPU
//     demand reaches 130 % of capacity (FGDPods; FGD's stop test compares
//     the per-GPU milli of the drawn pod, kept). One PCG stream seeded
//     (seed, seed) draws both: the pod order differs from FGD's own Go
//     math/rand stream, so per-seed numbers differ, not their
//     distribution;
//   - no departures: pods are placed one at a time, in order; a pod no
//     node can hold fails and is not retried (FGD's simulator);
//   - one scorer per profile (FGD's "only the scorer under test, weight
//     1000": with one scorer the weight does not change the argmax), every
//     feasible node scored (percentageOfNodesToScore 100), BestFit's
//     scores min-max normalised as its NormalizeScore does, the best node
//     taken with ties to the smallest node name (FGDOptions.RandomTies:
//     uniformly among the tied, as upstream's selectHost);
//   - metrics: the GPU allocation ratio (allocated GPU milli over
//     capacity) at each arrived-demand bin 0–130 % (the state after the
//     first pod that brings arrived demand to at least k % of capacity;
//     the final state for bins never reached, so "130 %" is the end of
//     the run), FGD's fragmented amount over the trace's target workload
//     as % of capacity and as % of the idle GPUs (fragmentation ratio) at
//     50, 55, ..., 100 %, and the pods that failed;
//   - the throughput and p99 columns time the replay loop's per-pod work
//     (filter, score, choice) as ratios to LeastAllocated in the same run:
//     they compare the scorers' cost, not kube-scheduler's cycle.
//
// The scorers, the GPU choice at Reserve and the device model are the
// ones the GPUShare plugin runs inside kube-scheduler; the loop replaces
// the scheduler framework so that 10 seeds × 11 profiles run in minutes
// (Run, on the shared replay harness, is the real scheduler; it was not
// ready when the FGD runs were made).
// FGD-learned is msched's learned-prior FGD (gpushare.Learner: the target
// workload learned online from the arrivals, starting from nothing); "+BF"
// breaks a profile's ties by BestFit's score. Lookahead and
// Lookahead-learned (fgd_msched.go) are msched's profiles past FGD:
// gpushare.Lookahead (FGD's fragmentation plus a γ-weighted one-step
// lookahead over the next pod) over the told workload, and over the
// workload learned online (a Learner rebuilt every LearnEvery arrivals,
// as FGD-learned); "+BF" applies to them too.
//
// # FGD protocol inside kube-scheduler
//
// RunFGDScheduler (openb-compare -protocol fgd -scheduler) runs the same
// nodes and pods through the real scheduler (kube/internal/replay), one
// pod at a time: create, settle, read where it went; a pod left unbound
// is counted failed and deleted (with no departures it could never fit
// later, and the scheduler would retry it at every binding). The
// configuration is FGD's: percentageOfNodesToScore 100, every default
// PreScore and Score plugin disabled and the scorer under test enabled at
// weight 1000 (GPUShare with the profile's policy, or OGASched, DRF, ESDP
// beside GPUShare's device model), and DefaultPreemption disabled in
// every profile, the default included, since FGD's simulator never
// preempts. Decisions where the issue is silent:
//
//   - ties: kube-scheduler's selectHost picks uniformly among the best;
//     GPUShare's NormalizeScore (Args.TieBreak "name") leaves the smallest
//     node name alone at the top, FGD's rule, after BestFit's min-max
//     normalisation (which the plugin now does, as the loop does);
//   - Random is not run inside the scheduler (its "every node scores the
//     same" needs kube-scheduler's random tie-break, and the plugin picks
//     its GPU by best fit), nor the "+BF" tie-breaks;
//   - the GPU ids come from GPUShare's reservation (Plugin.Reserved): the
//     harness binds its own copy of the pod, without the annotation the
//     plugin patches at PreBind, as the plugin's own NodeState reads them;
//     the driver replays every placement on a copy of the device model
//     (Assign refuses a GPU set that does not fit) for the metrics;
//   - FGD's prior is given to the plugin in process (Args.Prior), the
//     same *Workload as the loop's, so its fragmentation has the same
//     bits; OGASched's and DRF's clock advances one second per pod
//     created, their slot is 60 pods; ESDP's slots run on the wall clock
//     (5 s).
//
// Every placement is the loop's (node and GPU ids): LeastAllocated,
// BestFit, FGD and FGD-learned on seed 42 (10 879 pods), FGD and BestFit
// on seeds 42–51 (108 360 pods each), so the kube-scheduler numbers are the
// loop's (fgd-results/kube-scheduler/scheduler-vs-loop.md);
// TestRunFGDSchedulerMatchesLoop checks it on a small trace.
//
// FGDThroughput (openb-compare -protocol fgd -throughput R) is the cost
// inside kube-scheduler: a burst of the first pods of a seed's list
// (default 2 000, about a fifth of the capacity, so that none fails and
// the queue holds no pod the scheduler retries at every binding), every
// profile R times interleaved, pods bound per second (of wall time, and
// of the process's CPU time, which other processes on a shared machine
// disturb less) and the p99 of SchedulePod as ratios to LeastAllocated in
// the same rounds (fgd-results/kube-scheduler/throughput.md).
package openb
