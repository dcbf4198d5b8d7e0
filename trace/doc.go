// Package trace loads Alibaba's GPU cluster trace (cluster-trace-gpu-v2023,
// the "OpenB" files of github.com/alibaba/clusterdata) and maps it to an
// instance of each msched algorithm family.
//
// # Loader
//
// The node list (sn, cpu_milli, memory_mib, gpu, model) and the pod lists
// (name, cpu_milli, memory_mib, num_gpu, gpu_milli and, where present,
// gpu_spec, qos, pod_phase, creation_time, deletion_time, scheduled_time)
// are read with encoding/csv, one row at a time ([NodeReader],
// [PodReader]) or whole ([ReadNodes], [ReadPods], [Load]). Columns are found
// by header name. Every row is checked: integers where integers are due,
// no negative resources, gpu_milli in [0, 1000] and 0 without GPUs,
// deletion >= creation, creation <= scheduled <= deletion, creation times
// non-decreasing down the file, unique names, a GPU model on GPU nodes. A
// bad row gives a *[ParseError] with file, line and column, wrapping one of
// the sentinel errors; no row is dropped silently. The library ships the
// loader, never the data: tests that need the data skip when the folder is
// absent, and [DefaultDir] says where it is expected
// (../shared/traces/alibaba-openb-2023 next to the repository, or
// $MSCHED_TRACE).
//
// # Mappings
//
// The trace has no utilities, service rates or rewards; each mapping takes
// the resource shapes, the node inventory and the timing from the trace and
// the rest from the family's paper generator, seeded. Units of the K = 3
// resource types are a core, 4 GiB of memory and a GPU ([NodeCapacity]).
// Job types are pods grouped by [Shape] (CPU, memory, total GPU share,
// allowed GPU models), most frequent first ([JobTypes]); a job type connects
// to a node when one pod of it fits the empty node and the node's GPU model
// is allowed ([Shape.Fits]), which is the service locality of the papers.
//
//   - OGASched ([OGASched]): ports are the Ports most frequent shapes
//     (default 10, which cover 4796 of the 8152 pods of the default list),
//     servers a uniform sample of Nodes nodes (default 128, the paper's
//     |R|), demands the shape's request, capacities the node's, and the
//     creation span cut into T slots (default 2000, about 6451 s each):
//     x_l(t) is 1 if a pod of type l was created in slot t (or the count,
//     with Counts). Utilities and beta as in Table II. With the trace's own
//     requests contention is low (a pod asks a few percent of a node);
//     Contention scales demands as the paper's multiplier does.
//
//   - ESDP ([ESDP]): the 8 most frequent shapes x 40 sampled servers
//     (Table 2's sizes), each type keeping 4 of the servers it fits (the
//     trace's fit relation is far denser than the paper's 0.1), demand
//     levels quantised to {0, 1, 2}, arrival probabilities measured on
//     200 slots of the creation span; capacities, valuations and costs from
//     the paper's generator, since the trace has no rewards and its nodes
//     never bind.
//
//   - OnSocMax ([OnSocMax]): the busiest day as 10 sampled nodes x 24
//     hourly slots with core-hour capacities; each pod of that day is a
//     job from its creation slot to its deletion slot with workload
//     cores x duration, at most its cores per unit, on the nodes it fits.
//     The day uses a sixth of the capacity; CapacityScale emulates
//     congestion.
//
//   - OCORP ([OCORP]): every scheduled pod is a job with a_j its creation
//     slot (10 minutes), d_j its cores, m_j its memory in 4 GiB units and
//     p_j its run time (deletion - scheduled) in slots; machines are
//     sampled nodes. Pods never scheduled (Pending) have no run time and
//     are skipped and counted, as are pods larger than every machine.
//
// Every mapping is deterministic given its options and seed.
//
// # DLRM gangs
//
// The DLRM trace (Alibaba cluster-trace-gpu-v2025, disaggregated_DLRM_trace.csv:
// 156 services, 23,871 instances, 16,485 CN and 7,386 HN) is read by
// [DLRMReader] ([ReadDLRM], [LoadDLRM], [DefaultDLRMDir]; $MSCHED_DLRM_TRACE
// or ../shared/traces/alibaba-dlrm-2025) with the same table reader,
// Limits and *ParseError as the OpenB files. Every row is checked (unique
// instance_sn, role CN or HN, integer cpu/gpu/rdma requests with rdma in
// [0, 100], finite non-negative memory and disk, limits not below
// requests, max_instance_per_node -1 or in [1, MaxDLRMPerNode], times
// finite in [0, MaxTime], creation <= scheduled <= deletion); empty or NaN
// times are absent (the README: before the start or after the end), and
// times are fractional seconds (475.00000000000006 occurs). The file is
// not sorted by time and no order is required. To catch a repeated name
// the reader keeps a 128-bit SHA-256 digest of each name, not the name
// (memory about 50 bytes a row, bounded by MaxRows, whatever the names'
// lengths). DLRMGangInstance applies the same rules to the instances it is
// given (hand-built ones included), except max_instance_per_node, which it
// does not use.
//
// [DLRMGangInstance] maps it to a bipartite.GangModel usable by both
// families. Assumptions, since the trace lists no nodes and the README
// only cites the NSDI'25 Prism paper for the setting (GPU-disaggregated
// serving: CPU nodes run the CN part of a service, GPU nodes its HN part,
// joined by RDMA):
//
//   - job type l = one app; a gang job is a serving unit of both roles in
//     the app's CN:HN proportion, at most MaxComponents (8) components, at
//     least one of each role the app has, m_l = all of them (a
//     disaggregated service is useless without either part);
//   - each component demands its role's most frequent request in the app,
//     in DLRMUnits (8 vCPU, 1 GPU, 64 GiB, 25 % RNIC, 256 GiB disk), over
//     K = 6 types CPU, GPU, MEM, RDMA, DISK and CN-SLOT (one per CN
//     component: CN components then run only on CN servers, HN ones only
//     where there are GPUs);
//   - servers: 32 CN nodes (256 vCPU, 2 TiB, 2 RNICs, 4 TiB disk, 110 CN
//     slots, the kubelet's pod limit) and 16 HN nodes (8 GPUs, 128 vCPU,
//     1 TiB, 4 RNICs, 8 TiB disk); every app may use every server. These
//     are parameters (DLRMGangSettings.CN, HN, CNNodes, HNNodes); the
//     counts are chosen so that about 4 % of the arrived jobs cannot be
//     placed in their slot, i.e. capacity binds;
//   - x_l(t) = 1 when an instance of app l was created in slot t of
//     SlotSeconds (3600: T = 744 slots); instances without a creation time
//     existed before the trace and are not arrivals;
//   - max_instance_per_node (a per-app density limit) is read but not
//     modelled: a GangModel has per-server capacities only;
//   - for OGASched, utilities and beta as in Table II, seeded (the trace
//     has no rewards); ESDP draws its channel rewards from its generator.
//
// # Limits
//
// No file, [Trace] or option may abort or hang the process that loads it.
// [Limits] (zero value = the defaults) bounds, before anything is
// allocated:
//
//	what                                      field           default            ceiling
//	bytes of one CSV record                   MaxRecordBytes  2^20 (1 MiB)       2^30
//	rows of one file / pods or nodes of a Trace  MaxRows      2^24 = 16,777,216  2^30
//	creation, deletion, scheduled time (s)    MaxTime         2^40 ≈ 1.1e12      2^61
//	cpu_milli, memory_mib                     MaxResource     2^40               2^52
//	num_gpu, gpu                              MaxGPUs (const) 2^20
//	slot counts and horizons of a mapping     MaxSlots        2^22 = 4,194,304   2^31
//	cells of a table a mapping allocates      MaxCells        2^26 = 67,108,864  2^31
//
// A field above its ceiling is an error from [Limits.Validate] (wrapping
// ErrTooLarge, naming the field, the value and the ceiling), which every
// reader, Check method and mapping calls first: MaxSlots and MaxCells at
// MaxInt with T = 1e9 tried to allocate terabytes.
//
// The readers cut a record at MaxRecordBytes while reading (a quoted field
// may span lines; the count is per record), so a 1 GB field is an error
// naming the line, not a 1 GB buffer. A header with a column twice is an
// error (before, the last one won), and a UTF-8 byte-order mark before the
// first column is ignored (before, it made that column "missing"). Every
// mapping first checks every pod and node of the Trace with
// [Limits.CheckTrace] (a Trace built in code skips the readers), so two
// pods created at 0 and MaxInt64 give an error naming pod 1, creation_time,
// the value and MaxTime instead of a negative index, a makeslice panic or
// a hang; with timestamps bounded by MaxTime every difference of two of
// them fits an int64. Then each mapping bounds what it derives: the job
// types × nodes (or pods × nodes) of its fit test, OGASched's T and
// T × ports, ESDP's T, OnSocMax's Slots, SlotSeconds, nodes × slots
// (bipartite.Limits) and the resource units of all its jobs (it finds the busiest window by sorting
// the pods' window indices, not with a table of all windows, which was
// 92 GB for a span of 1e15 s), and OCORP's arrival + processing of every
// job (which bounds the horizon its simulators step through). Settings
// that were silently replaced by their default when invalid are now
// errors, except the documented zero values: a NaN or infinite
// Contention or CapacityScale, an ESDP Alpha outside (0, 1], a negative
// count or length (Ports, Nodes, T, Servers, Degree, Slots, SlotSeconds,
// Day, MaxJobs, Jobs, Machines, MaxProcessing; -1 stays "all" where
// documented), each naming the option. Each settings
// struct has a Limits field; the readers and Load have Limits methods.
package trace
