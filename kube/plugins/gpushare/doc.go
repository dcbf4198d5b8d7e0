// Package gpushare is msched's GPU device model for kube-scheduler and
// the scorers of FGD's comparison (Weng et al., "Beware of Fragmentation:
// Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent",
// USENIX ATC'23), shared by every profile of the OpenB comparison
// (kube/openb, FGD protocol).
//
// # Devices
//
// A node keeps each GPU's free milli (1000 per GPU). A GPU-sharing pod
// (one GPU, under 1000 milli) goes on one GPU; a multi-GPU pod takes whole
// free GPUs. Filter (Node.Fits) rejects a node where no GPU set fits, the
// CPU or memory left is short, or the GPU model is refused. The GPU ids
// are chosen at Reserve by the profile's GPU chooser, released at
// Unreserve, and recorded on the pod.
//
// # Representation: the GPU-share annotations, not DRA
//
// The pod asks alibabacloud.com/gpu-milli (per GPU) and
// alibabacloud.com/gpu-count, optionally alibabacloud.com/gpu-card-model
// (accepted models joined by "|"); the chosen GPUs are written to
// alibabacloud.com/gpu-index ("0-1"), the convention of Alibaba's
// open-gpu-share scheduler plugin and of FGD's simulator; a node exposes
// alibabacloud.com/gpu-count GPUs of the model in its
// alibabacloud.com/gpu-card-model label. Why not Dynamic Resource
// Allocation (ResourceSlices, one device per GPU, a ResourceClaim per
// pod): a DRA ResourceClaim allocates whole devices unless the driver
// publishes partitions or shareable capacity (partitionable devices,
// consumable capacity: feature-gated extensions whose status msched did
// not verify for v1.37, and which need a DRA driver publishing counters);
// FGD's trace asks arbitrary fractions of a GPU (e.g. 460 milli), which
// the GPU-share convention expresses directly, in the form FGD's
// simulator and its published numbers use. The annotations also work in
// the in-process replay without a DRA driver.
// The device state of a node is rebuilt from the annotations of the pods
// bound to it (a restarted scheduler loses nothing).
//
// # Scorers
//
// FGD, BestFit, DotProd, GpuPacking, GpuClustering and Random as FGD's
// repository (hkust-adsl/kubernetes-scheduler-simulator) defines them,
// and kube-scheduler's LeastAllocated and MostAllocated over CPU, memory
// and GPU milli. Where msched reads the repository differently or
// simplifies, the scorer's doc says so (DotProd's vector extension; Random
// as a uniform feasible node).
//
// FGD's target workload is the request shapes (CPU, GPU milli, GPU count,
// GPU models) covering 95 % of the pods, CPU pods included (NewWorkload).
// Learner learns it online from the arrivals instead (msched's
// learned-prior profile).
//
// # Lookahead: past FGD (msched)
//
// FGD is myopic: its score F(n) − F(n+pod) counts the fragmentation the
// pod adds now, over the workload's shapes. Lookahead (msched's scorer)
// also places the next pod: NextFrag(c) is the fragmentation of a node
// state c expected after one more pod drawn from the workload is placed
// on c greedily (its GPU choice minimising the fragmentation; a shape
// that cannot run on c leaves it unchanged, it goes elsewhere). A state is
// valued V(c) = (1 − γ)·F(c) + γ·NextFrag(c), and a node scored
// int(sigmoid((V(n) − V(n+pod))/1000) × 100), FGD's scale and integer
// rounding (with the smallest-name tie-break the rounding is what packs
// the near-ties onto the first nodes: FGD scored without it, on the exact
// ΔF, placed 2.5 points less on seed 1 in a throwaway loop, not
// committed).
//
// What it is told and what it learns: with the told workload it knows
// FGD's prior and nothing else; Lookahead over a Learner's workload starts
// knowing nothing and learns the shapes and their frequencies from the
// arrivals (the expectation is over the shapes seen so far, rebuilt as
// the Learner rebuilds). γ = LookaheadGamma = 0.3 is fixed, not learned:
// it was chosen by screening on seeds 1–6, outside the reported 42–51
// (openb-compare profiles Lookahead@γ): 0.2, 0.3, 0.4 and 0.5 placed 0.21
// to 0.38 points more than FGD at 100 % on 6 of 6 seeds, 0.3 best; 0.05,
// 0.1, 0.7 and 1 placed less. It stands for the chance that the node,
// not another, receives the next fitting pod (γ = 1, the full two-step
// expectation, placed 0.81 less than FGD: the next pod mostly lands on
// another node). The gain is a band, not smooth in γ: the score keeps
// FGD's integer rounding, so γ changes which nodes tie.
//
// Decisions where FGD and the issue are silent: memory is not part of a
// shape (as in FGD), so NextFrag ignores it; the lookahead's GPU choice
// for a sharing shape is the one that minimises F after it (FGD's own),
// for a whole-GPU shape the first wholly free GPUs; V is memoised by the
// node's state (model, free CPU, the GPUs' free milli as a multiset),
// which is all V depends on.
//
// Inside kube-scheduler the plugin runs it with Args.Policy "Lookahead"
// (the told workload, Args.Workload or Args.Prior) or
// "Lookahead-learned" (a Learner rebuilt every 100 arrivals): one
// Lookahead per plugin, its memo shared by the cycles and locked, its
// fragmentation taken from the plugin's FragMemo. On OpenB seed 42 it
// places every pod where the replay loop does.
//
// # Cost of FGD's score
//
// FGD's score of a node needs the fragmentation F before and after the
// pod, over every shape of the target workload, for every GPU a sharing
// pod could take: the direct computation took 66 % of the replay loop's
// CPU. FragMemo memoises F by the node's canonical state (GPU model, the
// CPU class against the shapes' CPU requests, free milli sorted), which
// thousands of nodes share; the plugin keeps one memo for all its cycles,
// reset when the workload changes (FGD-learned's Learner rebuilds it every
// 100 arrivals). The memo returns the bits of the direct computation, so
// placements are unchanged (checked pod by pod on OpenB); its memory is
// bounded (MaxMemoEntries, MemoGPUs, MaxMemoModel). The GPU sets scorers
// return may be shared (one-GPU sets are not allocated): callers read or
// copy them.
//
// # Ties and normalisation inside kube-scheduler
//
// Args.TieBreak "name" makes the best node unique, the smallest name
// (FGD's simulator), in NormalizeScore; BestFit's scores are min-max
// normalised there too, as FGD's NormalizeScore does. Both are exact when
// GPUShare is the profile's only score plugin (FGD's protocol).
package gpushare
