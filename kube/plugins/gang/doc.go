// Package gang is a kube-scheduler plugin that places pod groups all or
// nothing (gang scheduling), with the labels scheduler-plugins'
// coscheduling users already have.
//
// # Usage
//
// Label every member of a group with scheduling.x-k8s.io/pod-group=<name>
// (Args.GroupLabel) and give each the group's min-member count in the
// annotation (or label) scheduling.x-k8s.io/min-member (Args.MinMemberKey).
// Enable the plugin at preFilter, reserve, permit and postBind of a profile
// (config/scheduler-config.yaml, profile msched-gang).
//
// # Extension points, and why
//
//   - PreFilter: a group with fewer live pods than min-member is rejected
//     (UnschedulableAndUnresolvable, retried when a pod is added). Otherwise
//     the GangPlacer plans the members still needed to reach min-member
//     (the pod being scheduled first) on the snapshot, where members
//     waiting at Permit already hold their nodes. If they do not all fit,
//     the pod is rejected and nothing is held; if they do, the pod is
//     restricted to its planned node (PreFilterResult). PreFilter is the
//     only point that sees all nodes and can say "not now" before anything
//     is reserved.
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
// # Placement
//
// The nodes are chosen by a GangPlacer (NewWithPlacer). The default,
// Knapsack, is the core library's gang oracle (esdp.GangOracle, the gang
// knapsack of ESDP-gang): the members to place are one gang job with
// min-member = all of them, the nodes its servers with their free
// resources (CPU, memory, ephemeral storage, pod slots, extended
// resources); it finds a whole placement whenever one exists within its
// budget, where first fit may not (TestKnapsackMatchesBruteForce checks it
// against brute force). FirstFit is the simple alternative. Both check
// resources only; the scheduler's Filter plugins still run on the planned
// node, and a member whose planned node fails them is retried.
package gang
