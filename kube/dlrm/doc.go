// Package dlrm replays the gangs of the Alibaba GPU-disaggregated DLRM
// trace (cluster-trace-gpu-v2025, NSDI'25 "Prism") through the real
// kube-scheduler (k8s.io/kubernetes/pkg/scheduler) in process, with a fake
// clientset and informers, as package openb does for OpenB, and counts
// what a gang user looks at: groups placed whole, groups ever half-bound,
// and the time to place a group.
//
// # The instance
//
// The groups are those of the core's gang mapping, trace.DLRMGangInstance
// with its defaults: job type l is one app (service); one group of app l
// is a serving unit of CN[l] CPU-node and HN[l] GPU-node components in the
// app's own CN:HN proportion (at most 8 components), each asking for its
// role's most frequent request in the app; a group arrives in every hourly
// slot in which an instance of the app was created, in slot order (apps
// in order of first appearance within a slot). Every member carries the
// scheduler-plugins coscheduling label scheduling.x-k8s.io/pod-group and
// the annotation scheduling.x-k8s.io/min-member = the group's size (a
// disaggregated service is useless without both of its parts), which
// plugins/gang reads.
//
// The trace lists no nodes. The cluster is the mapping's assumed one:
// 32 CN servers (256 vCPU, 2 TiB memory, 200% RDMA, 4 TiB disk, 110 CN
// slots) and 16 HN servers (128 vCPU, 8 GPUs, 1 TiB memory, 400% RDMA,
// 8 TiB disk), see trace.DefaultDLRMCN and trace.DefaultDLRMHN. The
// resources are cpu, memory, nvidia.com/gpu, ephemeral-storage (disk) and
// the extended resources msched.io/rdma (percent of one RNIC) and
// msched.io/cn-slot (1 per CN component, so that CN components run only
// on CN servers). max_instance_per_node is not modelled.
//
// # The replay
//
// Groups are held: a bound pod never leaves, so the cluster fills in
// arrival order, as openb's -hold does. After each slot's groups are
// created the replay waits until the scheduler is idle (nothing active,
// backing off, in flight or waiting at Permit). A group is counted
// half-bound when, at one of these idle points, some but not all of its
// members are bound; a group whose members are being bound one after the
// other at that instant is in flight and not idle, so the count measures
// what stays, not the milliseconds between two bindings of one allowed
// group. Time to place is the wall time from the creation of a group's
// first member to the binding of its last.
//
// The scheduler and the fake API server are built by the replay harness
// shared with package openb (kube/internal/replay): the idle check is
// woken by the scheduler's events (it needs two idle observations in a
// row; before the shared harness, three, 1 ms apart), and creations and
// deletions are paced on the informer's event counts (before, by listing
// its store after every pod). Members waiting at Permit when nothing else
// can happen are timed out at once instead of after permitWaitingTimeSeconds
// of wall time (replay.Config.WallPermitTimeouts): the outcome is the
// timer's (the member is rejected and plugins/gang releases its group), but
// the wall time to place no longer includes those idle seconds. Options.SchedulerConfig, Registry,
// FeatureGates, BackoffSeconds, PodObject, GroupObjects, Objects and
// AfterBind let a replay run other profiles, such as upstream's
// GangScheduling with Workload and PodGroup objects. Options.GangArgs
// (dlrm-gangs -gang-args) adds plugins/gang args to the Gang profile,
// e.g. reserveBlockedMillis and backfill (issue 33's measurements).
//
// Profiles: Default is kube-scheduler's default profile, which has no gang
// semantics (each pod is placed on its own); Gang adds plugins/gang
// (PreFilter, Reserve, Permit, PostBind; knapsack placer, Permit timeout
// 5 s) and uses it as the queue order (groups whole, oldest first); Upstream is
// the default profile with the GenericWorkload gate, so kube-scheduler's
// GangScheduling places PodGroups (see Upstream for the idle rule its
// endless retries need). Every profile also runs a Reserve plugin that clocks the
// GPU time members hold between Reserve and their binding
// (Result.IdleGPUSeconds).
//
// Time compression: a slot is one hour of the trace; the replay moves to
// the next slot as soon as the scheduler is idle, so an hour takes the
// wall time per slot that WriteGangTable prints (hundreds of
// milliseconds on the shared machine). Permit-based waiting runs in process: scheduler.New builds the
// same framework runtime, waiting-pods map and binding goroutines as the
// binary.
package dlrm
