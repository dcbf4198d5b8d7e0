// Package replay is the trace-replay harness shared by kube/openb and
// kube/dlrm: the real kube-scheduler (k8s.io/kubernetes/pkg/scheduler,
// upstream and unmodified) over a fake API server, driven step by step by
// a replay loop.
//
// # Usage
//
//	h, err := replay.Start(ctx, replay.Config{
//		SchedulerConfig: yaml,    // a whole KubeSchedulerConfiguration
//		Nodes:           nodes,   // []*v1.Node
//		Registry:        registry, // out-of-tree plugins
//		Admit:           check,   // the API server's binding check
//	})
//	defer h.Close()
//	for each step {
//		h.Delete(ctx, ns, name) // completions, give-ups
//		h.Create(ctx, pod)      // arrivals
//		h.Settle(ctx)           // until the scheduler is idle
//		sample()                // what Admit/AfterBind recorded
//	}
//
// # What it builds
//
// scheduler.New, as Kubernetes' own scheduler tests build it, with the
// profiles decoded from YAML by the kube-scheduler binary's loader
// (options.LoadConfigFromFile), percentageOfNodesToScore and parallelism
// from that file, pod backoff from Config (default 0), events dropped,
// and a fake clientset (k8s.io/client-go/kubernetes/fake) whose
// pods/binding subresource is served by the harness: Config.Admit checks
// the binding, then the pod gets spec.nodeName, then Config.AfterBind
// runs. Config.FeatureGates (e.g. GenericWorkload) and Config.Objects
// (e.g. Workload and PodGroup objects) serve the upstream gang API.
//
// # Why it is fast
//
// A replay spends its time in three places: the scheduler (what is
// measured), the fake API server, and waiting for the scheduler to be
// idle. The harness keeps the last two small:
//
//   - The fake clientset is the plain object tracker (NewSimpleClientset),
//     not the field-managed one (NewClientset), which runs server-side-apply
//     bookkeeping on every write and stores managedFields in every pod.
//   - The replay's own creates and deletes go straight to the tracker: the
//     clientset records every action it serves, with two deep copies, for
//     ever; the actions the scheduler makes (bindings, status patches) are
//     dropped at every Settle.
//   - Settle is woken by the scheduler (its loop entering NextEntity, a
//     binding, an informer event) instead of polling with sleeps, and checks
//     the cheap conditions (counters) before listing the queue.
//   - Create and Delete pace on counters of the informer's events, not by
//     listing its store.
//
// # Idle
//
// Settle returns when the informer has delivered every add and delete the
// replay made, the scheduling loop is blocked waiting for a pod, nothing is
// in flight (scheduling, waiting at Permit or binding), the active and
// backoff queues are empty, every pending pod is in the queue and the
// scheduler's cache holds exactly the bound pods; twice in a row. Pods
// rejected as unschedulable stay in the queue until an event moves them
// (upstream's queueing hints decide which), as in a cluster.
//
// A scheduler that retries for ever what cannot be placed never gets
// there: v1.37's pod group cycle treats a PodGroup that does not fit as
// an error, puts it on backoff and tries it again each time its backoff
// expires. With
// Config.SettleOnFailedRetries the harness also counts as idle a
// scheduler whose active queue is empty, whose bindings all reached its
// cache, and whose pending pods in the backoff queue or in flight have
// each failed an attempt that started after the last cluster change (a
// pod created, deleted, bound or refused, and its informer event) with
// the cache holding exactly the bound pods. Such a pod is retrying, not
// working: a scheduler whose filters have no state of their own fails it
// again until something changes, and after a change it must fail again
// before the step ends. Backoff pods that have not failed since the last
// change, when the scheduling loop waits for a pod and nothing is in
// flight, are moved to the active queue (SchedulingQueue.Activate) at
// once: their backoff timer brought forward, the same clock jump as for
// Permit timeouts below. Counts.RetrySettles counts the steps that ended
// this way. The rule is off by default: plugins/gang keeps state across
// attempts (a rejected member replans) and could succeed on a retry with
// nothing changed.
//
// Two states end a step without being idle, and are counted instead of
// hanging the replay: Config.MaxPermitTimeouts fired Permit timeouts in
// one Settle (a plugin that requeues a rejected pod which waits again;
// Counts.PermitLoops), and pending pods that the scheduler holds neither
// in its queue nor in flight while nothing else moves for a second
// (Counts.LostSteps; seen with plugins/gang after a Permit rejection).
//
// # Time
//
// The harness has no clock of its own: the replay loop decides what a step
// is in trace time, and plugins that need trace time get a clock from the
// replay (plugins.FactoryWithClock). The scheduler's own timers (backoff,
// Permit timeouts, the unschedulable-pod flush) run on the wall clock,
// with one exception: a pod waiting at Permit when nothing else can happen
// (the scheduling loop waits for a pod, nothing is queued, binding or on
// its way through the informer, and every pod in flight waits at Permit)
// can only leave by its timeout, so Settle fires that timeout at once,
// for the pod created first, with the pending plugin's name, as the timer
// would (Config.WallPermitTimeouts keeps the wall-clock wait). This is the
// clock jump of a discrete-event simulation; without it a gang replay
// spends the Permit timeout (seconds) idle at every step where a group
// cannot complete, which made a whole DLRM replay take hours.
package replay
