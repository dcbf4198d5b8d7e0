// Package ocorp is a kube-scheduler plugin that orders the scheduling
// queue by OCORP's dual variables and preempts by OCORP's rule (Xu, Liu
// and Lau, ToN 2021; package github.com/msched/msched/ocorp).
//
// # Usage
//
// Enable OCORP as the queueSort plugin of every profile (kube-scheduler
// requires one queue sort, with the same args, for all profiles) and at
// postFilter of the profiles it manages (Args.Profiles, default
// msched-ocorp), instead of DefaultPreemption there. Pods may declare
// their processing time in seconds in the annotation msched.io/work
// (Args.WorkAnnotation; default Args.DefaultWorkSeconds).
//
// # Mapping
//
//   - Machine i: a schedulable node, C_i = its allocatable CPU in whole
//     cores (memory is left to the Fit filter: the 1-D model of Section IV).
//   - Job j: a pod of a managed profile that is not finished: d_j = its CPU
//     request rounded up to cores, a_j = the slot of its creation, p_j =
//     ceil(work / slot), remaining work d_j (p_j - slots since it started).
//   - Slot: Args.SlotSeconds. Once per slot a background goroutine runs
//     the policy (OCORP with Fill, Settings.K = Args.K) on the pods and
//     nodes of the informers and publishes omega_j = (w_j(t+1) - lambda_j)/d_j
//     per pod (an atomic pointer swap). Less and PostFilter only read it.
//
// # Extension points, and why
//
//   - QueueSort: Lemma 1 gives cores to jobs in ascending omega_j; the
//     queue is where kube-scheduler decides who goes first. Less orders by
//     priority (higher first), then omega (lower first; pods of other
//     profiles count as omega 0, so that they pass OCORP jobs OCORP would
//     leave idle and yield to those it would run), then queue time. With
//     no managed pod it is PrioritySort exactly, so the default profile
//     keeps its behaviour. A pod not yet in a slot's snapshot gets omega
//     with lambda_j = 0. Keys move once per slot; the queue's heap is not
//     re-sorted then, so the order is exact for pods pushed after the
//     slot's update and approximate for pods already queued.
//   - PostFilter: when a pod fits nowhere, pods of managed profiles with a
//     larger omega (later in the order in which OCORP with Fill gives
//     cores) and no higher priority are evicted, largest omega first, on
//     the node that needs the fewest, checked with every Filter plugin as
//     DefaultPreemption does; the pod is nominated there. (The printed
//     rule leaves jobs with omega >= 0 idle; with Fill, which the plugin
//     runs, the whole order is ascending omega, so the rule compares omega
//     only.)
//
// # What re-deciding every slot means for pods
//
// OCORP re-decides every job's cores x_j^i each slot: it may give a job
// fewer cores than d_j, move it to other machines (migration), or pause it
// and resume it later with its remaining work (preemption without loss).
// A pod cannot be resized (this plugin does not use in-place resize), moved
// or paused: it runs on one node with its full request until it ends or is
// deleted, and a deleted pod loses its progress (its controller starts it
// again from the beginning, as a new pod with a new arrival). So the plugin
// applies only the two parts of OCORP's decision that keep their meaning:
// who goes first (the omega order, at binding time) and who must stop
// (eviction of jobs later in the order when an earlier one cannot fit).
// Fractional rates, migrations and resumption are not reproduced; the dual
// update uses the policy's own decision (as the core's contract says), not
// what kube-scheduler bound, so lambda_j of a pod OCORP would run but the
// cluster cannot place stays low. Nodes joining or leaving rebuild the
// policy (the duals restart from 0).
//
// # State across restarts and failover
//
// Each managed profile keeps its learned state in a ConfigMap
// (Args.StateStore ConfigMap, the default; None keeps it in memory only):
// Args.StateNamespace (kube-system) / Args.StateName (default
// msched-ocorp-<schedulerName>), with the kube/plugins store OGASched and
// ESDP use. It holds versioned JSON: K, the nodes' cores the policy was
// built on, the slot clock (epoch and last slot), the job ID of every live
// pod (by UID) and the next ID, and the core policy's own snapshot
// (ocorp.Policy.MarshalBinary: the slot of the last decision, Gamma's
// running terms and lambda_j of every live job).
//
// The slot goroutine starts at the managed profile's first scheduling
// cycle: PreFilter (enable OCORP at preFilter of the managed profile, as
// config/scheduler-config-ocorp.yaml does; it never rejects a pod), or the
// first PostFilter without it. A replica runs scheduling cycles only while
// it holds the leader lease, so the state is loaded after it became
// leader, and a standby neither steps nor saves (its queue still orders by
// omega with lambda_j = 0 until it leads). The first cycle waits up to
// 10 s for the load, once. After each slot's decision the goroutine saves
// the state, never on the scheduling path. A restored policy continues
// with the same duals if the nodes' cores are unchanged (else it is
// rebuilt, as without a restart); the slot clock continues from the saved
// epoch, and is published with the duals at once, so the instances of the
// other profiles (the queue may sort with any profile's Less) price pods
// on the same clock. A missing state starts fresh. Load errors are told
// apart as OGASched's are (kube/plugins, statestore.LoadInto): an
// unreachable API server is retried with backoff, Forbidden slowly; a
// state that does not restore (format, version, K, sizes, values, or the
// policy snapshot's fingerprint and sha256 check) is logged as an error
// wrapping ErrState and never overwritten, the plugin publishes no duals,
// and it restores the object once it is replaced with a valid one, or
// starts fresh once it is deleted. A save never overwrites another
// writer's version (it reloads instead). Only the core policy's snapshot
// carries the sha256 check: a bit flip in the plugin's own fields (epoch,
// lastSlot, job IDs) is caught only when it breaks their validation.
// Because the args are the same in every profile, Args.StateName with two
// managed profiles is refused (two plugins cannot share one state
// object); the default names differ.
//
// # Queue order between slots
//
// The scheduling queue keeps pending pods in a heap ordered by Less at the
// time each pod was pushed. OCORP's keys (omega_j) change only when a slot
// publishes new duals (an atomic pointer swap), never between: within a
// slot the heap pops exactly in OCORP's order. When a slot publishes, pods
// already in the heap keep their positions (kube-scheduler offers no
// re-sort), so until they are popped or re-queued the pop order may
// follow the previous slot's keys, and the heap invariant may not hold
// for pairs whose order changed: the order drifts from OCORP's by at most
// the changes of one slot for pods that wait across it (a pod requeued
// after a failed cycle gets the current keys). TestQueueKeysChangeOnlyAtSlots
// shows both halves.
//
// # Preemption
//
// PostFilter deletes its victims in a background goroutine, at most 8
// preemptions at a time, each within 30 s for all its victims; past 8, a
// PostFilter does not preempt and says so (the pod is retried).
package ocorp
