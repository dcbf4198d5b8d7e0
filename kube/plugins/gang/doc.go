// Package gang is a kube-scheduler plugin that places pod groups all or
// nothing (gang scheduling), on Kubernetes' own Workload API first and on
// the labels scheduler-plugins' coscheduling users already have second.
//
// # Usage
//
// With the GenericWorkload feature gate on (Kubernetes 1.37, beta, off by
// default; the API server must also serve scheduling.k8s.io/v1beta1),
// create a PodGroup with spec.schedulingPolicy.gang.minCount (usually from
// a Workload's podGroupTemplates) and point each member's
// spec.schedulingGroup.podGroupName at it. Without the gate, label every
// member with scheduling.x-k8s.io/pod-group=<name> (Args.GroupLabel) and
// give each the group's min-member count in the annotation (or label)
// scheduling.x-k8s.io/min-member (Args.MinMemberKey). A pod naming a
// PodGroup is in that group whatever its labels; a PodGroup with the basic
// policy is no gang. Enable the plugin at preFilter, reserve, permit and
// postBind of a profile (config/scheduler-config.yaml, profile
// msched-gang); with the gate on, disable kube-scheduler's GangScheduling
// in that profile (multiPoint disabled) so that one plugin decides.
//
// # Extension points, and why
//
//   - PreFilter: a group with fewer live pods than min-member is rejected
//     (UnschedulableAndUnresolvable, retried when a pod is added). Otherwise
//     the plugin plans the members still needed to reach min-member (the
//     pod being scheduled first) on the snapshot, where members waiting at
//     Permit (and, for PodGroups, members the pod group cycle assumed)
//     already hold their nodes: it runs the profile's PreFilter and Filter
//     plugins for each distinct member spec on the nodes (node selector
//     and affinity, taints, ports, volume limits, resources, ...), then
//     the GangPlacer chooses, among the nodes each member passes, a node
//     per member. If they do not all fit, the pod is rejected and nothing
//     is held; if they do, the pod is restricted to its planned node
//     (PreFilterResult) and the plan is kept: the other members of the
//     plan get their nodes at their own PreFilter without replanning. A
//     member that comes back to PreFilter after using its planned node
//     (its Filter failed there, or it was released) drops the plan, and
//     that (member, node) pair is never planned again for the group. The
//     filters are evaluated on nodes in snapshot order until every member
//     spec has 100 passing nodes (kube-scheduler's minimum of nodes to
//     find), and on all nodes when the group does not fit on those.
//     PreFilter is the only point that sees all nodes and can say "not
//     now" before anything is reserved.
//   - Permit: the pod waits (Args.PermitWaitingTimeSeconds) until, with it,
//     min-member members are bound, binding or waiting; the member that
//     completes the group allows every waiting member (WaitingPod.Allow)
//     in one step, so no member binds before the group is complete.
//   - Reserve/Unreserve: when a waiting member is rejected or times out,
//     the framework unreserves it; Unreserve then rejects every other
//     waiting member of its group, which releases their nodes at once.
//     A timed-out group leaves nothing bound and nothing held.
//   - PostBind: bookkeeping of members between Allow and their binding.
//   - SignPlugin: group members refuse to be signed (no batching; a
//     member's placement depends on the rest of its group).
//
// # Guarantees and limits
//
// No member of a group binds before min-member members are permitted
// together. The one way to a half-bound group is the API server refusing a
// binding after the group was allowed (the scheduler had already reserved
// the node); that member is retried and the event is logged as an error.
// Members beyond min-member are let through as they come. The group state
// lives in the scheduler's waiting-pods map and the informer cache, so a
// restarted scheduler re-forms groups from what is bound.
//
// A refused binding (TestE2EGangBindRace): the refused member is retried
// at once (its plan is the member alone, the others hold their nodes);
// if, one Permit timeout later, the group still has some but fewer than
// min-member members bound and none binding, the plugin evicts the bound
// members through the Eviction API (PodDisruptionBudgets and graceful
// termination apply; the scheduler needs create on pods/eviction). We
// chose eviction over waiting for ever: a group that cannot bind whole
// must not hold its nodes, and its owner (a Job, a JobSet) recreates it.
//
// # Cost
//
// The plugin adds an index by group to the scheduler's pod informer (one
// per group label, shared by profiles), so a cycle reads its group's
// members in O(members), never the cluster's pods, and logs nothing at the
// default verbosity. A plan costs one PreFilter run per distinct member
// spec and one Filter run per (spec, node) scanned, plus the placer; the
// other members of the plan cost a map lookup. In the shape of
// Kubernetes' gang performance test (BenchmarkGangPerf: 5000 nodes,
// 1000-3000 PodGroups of 3), a pod group attempt of this plugin took 0.31
// to 0.44 of upstream GangScheduling's in the same run.
//
// # Placement
//
// The nodes are chosen by a GangPlacer (NewWithPlacer). The default,
// Knapsack, is the core library's gang oracle (esdp.GangOracle, the gang
// knapsack of ESDP-gang): the members to place are one gang job with
// min-member = all of them, the nodes its servers with their free
// resources (CPU, memory, ephemeral storage, pod slots, extended
// resources); it finds a whole placement whenever one exists within its
// budget, where first fit may not (TestKnapsackMatchesBruteForce checks it
// against brute force). FirstFit is the simple alternative. Both place a
// member only on nodes that passed its filters (fits); the scheduler's
// Filter plugins still run on the planned node, and a member whose planned
// node fails them gets a new plan without that node.
//
// # Queue order
//
// Enabled at queueSort (instead of PrioritySort), the plugin orders the
// queue by priority, then by the time each pod first entered the queue
// (Args.QueueOrder QueueByArrival): groups go whole and oldest first, and
// a group's members follow each other, so a plan made at the first
// member's PreFilter is used by the next ones before other groups plan.
// kube-scheduler's own order uses the time a pod last entered the queue,
// which it resets at every failed attempt, so the group that waited
// longest goes behind those that failed before it in the last round. On
// the DLRM replay this is what made plugins/gang place fewer groups than
// the default profile: see Plugin.Less for the measurements, and package
// dlrm for the whole trace. QueueByMinMember (smallest min-member first,
// the order before) is kept as an option.
//
// # Reservation and backfill (off by default)
//
// Args.ReserveBlockedMillis > 0 reserves capacity for a blocked group: the
// first group whose plan fails while no reservation is live gets phantom
// copies of its members still to place on nodes chosen greedily, member
// by member, for the most room left now (min over the requested
// resources of free/request; resources only, the member's other filters
// run when it plans for real; a member larger than every node's
// allocatable cancels the reservation). Until the group is placed or the
// timeout passes, other groups' plans leave those nodes alone, so the
// capacity their pods release accumulates for the blocked group instead
// of going piece by piece to the groups behind it. With Args.Backfill,
// other groups may use a reserved node for what is free there beside the
// phantoms ("fits beside the reservation"; finish-time backfill needs
// durations the pods do not declare). One reservation at a time; a group
// whose reservation expired gets a new one only after another group had
// one, so a group that cannot be served does not hold nodes for ever.
// Pods outside groups are not affected (the plugin skips them). The
// timeout is wall time, so on the slot-compressed DLRM replay it spans a
// varying number of slots.
//
// Why off: measured on the DLRM replay, with the queue order before
// QueueByArrival (smallest min-member first; lifetime 4 slots, several runs
// per variant on a loaded 2-core machine; the replay's timing depends on
// wall time, so a run varies by about +-10 groups of 400), groups placed,
// mean of 4 runs of 400 groups: no reservation 340.0, strict 1000 ms
// 325.8, backfill 1000 ms 344.0, backfill 2000 ms 333.5, kube-scheduler's
// default 357.0; of 150 groups (3 runs): 111.7, 105.0, 110.7 and 117.0.
// Strict reservation places fewer (reserved nodes idle while their pods
// drain, and the groups behind wait); backfill is within the spread of no
// reservation. On the whole trace (7 059 groups, one run each) no
// reservation placed 5 582, backfill 1000 ms 5 414 and 5 258, strict
// 1000 ms 5 063, all never half-bound, against the default's 6 327. The
// cause was the queue order, not the lack of reservation (see Queue
// order): with QueueByArrival and no reservation, Gang places more groups
// than the default.
package gang
