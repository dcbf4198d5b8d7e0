// Package plugins holds msched's kube-scheduler framework plugins: OGASched
// (online gradient ascent, paper 000) and DRF (msched's dominant resource
// fairness baseline for the same model) as Score plugins.
//
// # Usage
//
// Register the factories with the scheduler binary and enable the plugin at
// PreFilter, PreScore, Score and PostBind in a profile (see
// config/scheduler-config.yaml and cmd/kube-scheduler):
//
//	app.NewSchedulerCommand(
//		app.WithPlugin(plugins.OGASchedName, plugins.NewOGASched),
//		app.WithPlugin(plugins.DRFName, plugins.NewDRF))
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
//     pod. Pods of a port beyond MaxPorts skip the plugin's Score.
//   - Servers r are the nodes of the scheduler's snapshot, sorted by name;
//     port l connects to node r when one pod of l fits the empty node.
//   - Time slots have Args.SlotSeconds; x_l(t) counts the pods of port l
//     that reached PreFilter for the first time during slot t (a pod that
//     is retried is counted once; PostBind forgets it).
//   - At the first scheduling cycle of a new slot, the learner steps on the
//     finished slot's arrivals: OGASched takes its projected gradient step
//     (Observe) and gives y(t+1); DRF allocates for the finished slot's
//     arrivals (it decides after seeing x). Slots without arrivals are
//     skipped: OGASched's gradient is zero there.
//   - Score of node r for a pod of port l: 100 times the mean over the
//     resource types the port asks for of y_(l,r)^k / a_l^k, the share of
//     the port's demand the learned allocation places on r; NormalizeScore
//     scales the best node to 100. Rows are computed once per slot and
//     port; Score is a map lookup.
//   - The utilities f_r^k are all Args.Utility with Args.UtilityCoefficient,
//     beta_k = Args.Beta; OGASched's step is the anytime theory step (53).
//
// Nodes joining or leaving, and new ports, rebuild the problem at the next
// slot (or at once for a new port) with the learned y of the surviving
// (port, node) pairs carried over (ogasched.Settings.Init).
//
// # State across restarts
//
// With Args.StatePath set, OGASched writes its state (versioned JSON: the
// resource types, the step count, each port's key, demand and y by node
// name) to that file after every slot step, through a temporary file and a
// rename, and restores it when the plugin is built. A file that does not
// match (format, version, policy, resource types, sizes, values) is an
// error wrapping ErrState and the scheduler does not start; a missing file
// starts fresh. Nodes are named in the file, so the state survives nodes
// changing while the scheduler was down. Arrivals of the unfinished slot are
// not saved.
//
// # Families that do not fit
//
// kube-scheduler places one pod at a time, now, on one node. OnSocMax
// commits resources in future slots of a known horizon (a pod would need a
// start time and the scheduler to hold capacity for it later); OCORP
// re-decides every running job each slot and preempts (kube-scheduler never
// moves a bound pod; only the descheduler evicts); ESDP dispatches jobs to
// servers with per-job-type service rates learned from completions, which
// would need a completion hook (pods finishing are not a framework event)
// and a multi-pod decision per slot. They would fit a controller or a
// QueueSort/Permit-gated batch design, not a Score plugin.
package plugins
