// Package esdp is a kube-scheduler plugin that scores nodes with ESDP
// (paper 002; package github.com/msched/msched/esdp), learned per (pod
// shape, node) from the outcomes of the pods it placed.
//
// # Usage
//
// Enable the plugin at preScore and score of a profile
// (config/scheduler-config.yaml, profile msched-esdp). A finished pod may
// carry its reward in [0, 1] in the annotation msched.io/reward
// (Args.RewardAnnotation), set by the job itself before it ends (e.g.
// `kubectl annotate pod $POD msched.io/reward=0.8`); without it, Succeeded
// counts 1 and Failed 0.
//
// # Mapping
//
//   - Port l (job type): a pod shape, the vector of its requests of
//     Args.Resources in units, rounded up; shapes are added as they arrive,
//     up to Args.MaxPorts (later shapes get no ESDP score; PreScore skips).
//   - Server r: a schedulable node (by name). Channel (l, r) when one pod of
//     shape l fits the node's allocatable.
//   - Demand a_k^e: the shape's units; capacity c_k of (1): the cluster's
//     free capacity at the slot (allocatable minus the requests of bound,
//     unfinished pods of every profile).
//   - Slot: Args.SlotSeconds. 1_l(t) = a pod of shape l of this profile
//     was created unscheduled during the slot (pod informer).
//   - Reward Z~_e: the outcome of a pod of shape l that ran on node r and
//     finished. The scheduler's pod informer excludes terminated pods (a
//     pod leaving it arrives in its previous state), so the plugin keeps
//     its own informer on the profile's finished pods (field selector
//     spec.schedulerName, status.phase Succeeded or Failed); each pod counts
//     once (the last 65 536 finished pods are remembered against relists).
//
// # Extension points, and why
//
// ESDP's output is a value per channel (shape, node): a Score plugin.
// Informers (Handle.SharedInformerFactory()) carry arrivals and outcomes
// into the plugin with no work on the scheduling path; a background
// goroutine, once per slot, brings the model up to date (Policy.ChangeCluster
// keeps the statistics of the channels that remain), feeds the rewards,
// runs Decide and publishes the scores with an atomic pointer swap.
// PreScore and Score only read the published snapshot (a map lookup and a
// slice read). SignPlugin signs a pod with its shape: the score depends on
// nothing else, so batching stays on.
//
// # What is honest and what is not
//
// ESDP decides a batch per slot: x(t) picks, for the shapes that had
// arrivals, a set of channels that together fit the capacities (a
// multi-server job served by several servers). kube-scheduler places one
// pod at a time on one node. The plugin maps x(t) to a preference: the
// score of node r for a pod of shape l is
//
//	50 [x_(l,r)(t) = 1] + 50 for an unplayed channel (infinite index)
//	                    + 49 i/(1+i) for a played one, i = v^_e + sqrt(sigma^2_e(t))
//
// (half for being in the slot's decision, half for the channel's own
// upper-confidence index, increasing in it and below the unplayed score:
// unplayed channels come first, as in ESDP's own exploration). The decision is made from the
// previous slot's arrivals and is used for the pods of the next slot; with
// loose capacities x(t) holds every channel that fits and only the index
// part separates nodes. Rewards come from pods placed in earlier slots,
// whenever they finish, so they enter the statistics through Policy.Warm
// (observations outside a decision) rather than Observe of the slot's own
// x(t): the semi-bandit feedback of the paper arrives late and for the
// channels kube-scheduler actually used, which the other scoring plugins
// influence too. Node choice is the sum of all Score plugins; ESDP's
// share of it is the profile's weight.
//
// # State across restarts and failover
//
// The learned state is kept in a ConfigMap per profile (Args.StateStore
// ConfigMap, the default; None keeps it in memory only):
// Args.StateNamespace (kube-system) / Args.StateName (default
// msched-esdp-<schedulerName>), in data["state.json"] (gzipped in
// binaryData past 256 KiB), with the kube/plugins store OGASched uses. It
// holds versioned JSON: the resource types and units, oracleMiB, the model
// the policy was last built on (shape keys and demands, node names and
// allocatable in units, the knapsack capacity), the slot clock (epoch and
// last slot), the counts of outcomes fed and dropped, the largest
// resourceVersion of the finished pods taken, and the core policy's own
// snapshot (esdp.Policy.MarshalBinary: n_e, reward sums, slot bookkeeping,
// with the model fingerprint).
//
// The plugin's background goroutine starts at the profile's first
// scheduling cycle (PreFilter, which never rejects a pod; enable it
// beside PreScore: kube-scheduler skips PreScore when a single node fits,
// so a profile whose pods all have one feasible node never started
// learning), or the first PreScore without it. A replica runs scheduling cycles only while it holds
// the leader lease, so the state is loaded after this replica became
// leader, and a standby neither watches outcomes nor steps nor saves. The
// first cycle waits up to 10 s for the load, once. The goroutine then
// starts the outcome informer and steps once per slot; after each slot
// that took outcomes or decided, it saves the state, never on the
// scheduling path. A restore rebuilds the saved model, restores the
// policy's snapshot into it (UnmarshalBinary), and the next slot moves it
// onto the current shapes and nodes with Policy.ChangeCluster (statistics of the
// channels that remain are kept). The slot clock continues from the saved
// epoch (moved forward if this replica's clock is behind the saved slot).
// The outcome informer of the new leader lists every finished pod again:
// pods whose resourceVersion is at most the saved watermark were taken
// before and are skipped (a pod modified after it finished and was taken
// would count again; an outcome taken but not yet saved when the leader
// died is lost: at most once, up to one slot).
//
// A missing state starts fresh. Load errors are told apart as OGASched's
// are (kube/plugins, statestore.LoadInto): an unreachable API server is
// retried with backoff, Forbidden slowly, each logged; learning starts
// once the read succeeds. A state that does not restore (format,
// version, resource types or units, oracleMiB, sizes, values, or the
// policy snapshot's fingerprint and sha256 check) is logged as an error
// wrapping ErrState and never overwritten: the plugin then learns and
// scores nothing until the object is replaced with a valid state
// (restored) or deleted (fresh start); it reads it again every 5 s. Only
// the core policy's snapshot carries the check: a bit flip in the
// plugin's own fields (epoch, lastSlot, counts) is caught only when it
// breaks their validation. A save never overwrites another writer's
// version: the plugin loads that version instead. An idle leader (no pod
// of the profile scheduled since it became leader) still loads nothing
// and watches no outcomes: kube-scheduler tells plugins of leadership
// only through scheduling cycles. Two profiles of one scheduler, or two
// msched plugins of one profile, naming one state object are refused
// when the plugins are built (args.stateName: Duplicate value). The
// scheduler needs get, create and update on the state ConfigMap
// (config/state-rbac.yaml, by resourceNames).
package esdp
