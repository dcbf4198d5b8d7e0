// Package ogasched holds msched's OGASched (online gradient ascent, paper
// 000) and DRF (msched's dominant resource fairness baseline for the same
// model) kube-scheduler Score plugins. (Until issue 32 they lived in the
// root of kube/plugins, which now keeps only what the plugins share.)
//
// # Usage
//
// Register the factories with the scheduler binary and enable the plugin at
// PreFilter, PreScore, Score and PostBind in a profile (see
// config/scheduler-config.yaml and cmd/kube-scheduler):
//
//	app.NewSchedulerCommand(
//		app.WithPlugin(ogasched.OGASchedName, ogasched.NewOGASched),
//		app.WithPlugin(ogasched.DRFName, ogasched.NewDRF))
//
// # Mapping
//
//   - Resource types k are Args.Resources (default cpu in cores, memory in
//     GiB, nvidia.com/gpu); a pod's demand a_l^k is its effective request
//     (component-helpers PodRequests, init containers included) over the
//     unit, a node's capacity c_r^k its allocatable over the unit.
//   - Ports l (job types): the value of the pod label Args.PortLabel, or,
//     without it, the pod's request shape (its requests of the resource
//     types), as msched's trace package groups pods. Ports are added on
//     first sight up to Args.MaxPorts; a port's demand is that of its first
//     pod.
//   - Shapes beyond MaxPorts are bucketed: such a pod (and a pod of a new
//     port until the learner added it) is scored with the row of the
//     nearest known port, and its arrivals count on that port. Nearest:
//     among the ports asking for the same set of resource types (any port
//     when none does), the smallest Euclidean distance between demands,
//     each type divided by the largest node allocatable of that type; ties
//     go to the port seen first. Every pod with finite requests is scored
//     once a snapshot exists; PreScore logs at verbosity 4 why a pod is not
//     (no snapshot yet, non-finite requests).
//   - Servers r are the nodes of the scheduler's snapshot, sorted by name;
//     port l connects to node r when one pod of l fits the empty node.
//   - Time slots have Args.SlotSeconds; x_l(t) counts the pods of port l
//     that reached PreFilter for the first time during slot t (a pod that
//     is retried is counted once; PostBind forgets it; past 65 536
//     remembered pods the oldest is forgotten first, so only a pod pending
//     behind 65 536 newer arrivals can be counted twice).
//   - When a slot ends (seen by the next PreFilter or PreScore, or the
//     learner's 1-second tick), its arrivals go to the learner goroutine,
//     which steps: OGASched takes its projected gradient step (Observe) and
//     gives y(t+1); DRF allocates for the finished slot's arrivals (it
//     decides after seeing x). Slots without arrivals are skipped:
//     OGASched's gradient is zero there. No arrival is dropped: new ports
//     of the slot are added (rebuilding) before the step.
//   - Score of node r for a pod of port l: 100 times the mean over the
//     resource types the port asks for of y_(l,r)^k / a_l^k, the share of
//     the port's demand the learned allocation places on r; NormalizeScore
//     scales the best node to 100. Rows are computed once per slot and
//     port; Score is a map lookup.
//   - The utilities f_r^k are all Args.Utility with Args.UtilityCoefficient,
//     beta_k = Args.Beta; OGASched's step is the anytime theory step (53).
//
// Nodes joining or leaving, a node's allocatable changing, and new ports
// rebuild the problem (the learner compares the nodes with its model every
// second) with the learned y of the surviving (port, node) pairs carried
// over (ogasched.Settings.Init).
//
// # Off the scheduling path
//
// PreFilter, PreScore, Score and SignPod only record arrivals (a map
// update under a mutex) and read the published snapshot: the score rows of
// every port on every node, immutable, swapped in with an atomic.Pointer.
// One learner goroutine per plugin instance does everything else: loading
// the state, slot steps, rebuilds, row computation, saves. Its queues are
// bounded: 64 finished slots (the oldest two are merged, their arrivals
// summed into one step, when more wait) and 256 requested new ports. A
// slot's step is published asynchronously, so the first pods after a slot
// boundary may be scored with the previous slot's rows. Rebuilds asked by
// new ports are coalesced, at most one per 100 ms of wall time: a burst of
// new shapes (the first pods of a trace) otherwise rebuilt the problem once
// per shape, and the learner goroutine took 13 % of the scheduler's CPU on
// 2 cores (issue 32); a pod whose shape is not yet a port is scored by the
// nearest port meanwhile.
//
// SignPod returns the port key as the signature fragment, so kube-scheduler
// can batch pods of one port (opportunistic batching, KEP-5598).
//
// # State across restarts and failover
//
// OGASched keeps its state (the resource types, the step count, each
// port's key, demand and non-zero y by node name, in the msched core's
// snapshot envelope with a sha256 check: format msched/kube.OGASched
// version 2) in a ConfigMap per profile: Args.StateNamespace
// (kube-system) / Args.StateName (DefaultStateName:
// msched-ogasched-<schedulerName>). It is saved by the learner after each
// slot step, and once more by Close (within 5 s) when the last save
// failed. It is loaded when the plugin's learner starts, which is at the
// replica's first scheduling cycle: kube-scheduler runs scheduling cycles
// only while it holds the leader lease, so a standby that takes over
// loads what the old leader saved last (the first cycle waits up to 10 s
// for the first read, once). A missing state starts fresh.
//
// Load errors are told apart (statestore.LoadInto): an unreachable API
// server (timeouts, 429, 5xx, connection refused) is retried with backoff
// from 0.2 s to 5 s, Forbidden (the RBAC role, config/state-rbac.yaml)
// every 30 s, each logged; learning starts once the read succeeds. A
// state that does not restore (the check fails: a bit flip; format,
// version, policy, resource types, sizes, values) is logged as an error
// wrapping ErrState and never overwritten; the plugin scores nothing and
// reads the object again every 5 s, restoring it once it is replaced with
// a valid state, or starting fresh once it is deleted. A version 1 state
// (no check) is refused: delete it to start fresh. Saves update only the
// resourceVersion the plugin last read or wrote: when another writer (a
// second deployment with the same profile names, an operator) changed the
// object, the plugin loads it instead of overwriting it. A valid object
// deleted while the plugin runs is created again at its next save
// (delete it while the scheduler is stopped to start fresh). Nodes are
// named, so the state survives nodes changing while no replica ran.
// Arrivals of the unfinished slot are not saved. Two profiles of one
// scheduler, or two msched plugins of one profile, naming the same
// object are refused when the plugins are built (args.stateName:
// Duplicate value, naming both). Args.StateStore File (Args.StatePath)
// keeps the old local file, deprecated: it is not shared between
// replicas.
//
// The store (ConfigMap, File, the claims that refuse a shared object) is
// package kube/plugins/internal/statestore, shared with the ESDP and OCORP
// plugins, which keep their learned state the same way.
//
// # The other families
//
// kube-scheduler places one pod at a time, now, on one node, so OnSocMax,
// OCORP, ESDP and gangs do not fit a Score plugin like this one; they use
// other extension points, in their own packages: plugins/esdp (PreScore
// and Score, outcomes through informers), plugins/onsocmax (PreEnqueue and
// Reserve), plugins/ocorp (QueueSort, PreFilter and PostFilter) and
// plugins/gang (PreFilter, Permit, Reserve, PostBind).
package ogasched
