// Package baselines implements the heuristics the msched papers compare
// their algorithms against, on the same bipartite.OnlinePolicy contract as
// the algorithms themselves, so that a simulator runs them side by side on
// the same arrivals.
//
// Files are grouped by family:
//
//   - ogasched*.go: DRF, FAIRNESS, BINPACKING, SPREADING (paper 000);
//   - onsocmax*.go: MAX-FIRST, EQUAL-SHARE (paper 001);
//   - esdp*.go: HSWF, LCF, LWTF (papers 002/003), HSWF-channel (HSWF's
//     per-channel reading), and CUCB and Thompson sampling with the exact
//     knapsack oracle; esdp_gang*.go: their gang versions GangHSWF,
//     GangLCF, GangLWTF on a bipartite.GangModel (esdp.GangOnlinePolicy),
//     each placing a job whole or not at all: the job's components in
//     decreasing best v^, each on its fitting channel of highest v^, and
//     the job kept only with at least m_l components (otherwise undone,
//     holding no capacity);
//   - ocorp*.go: SRPT, SRVF, SVF, SRF (paper 004) and Tetris; SRPT, ...
//     pooled (NewSRPT, ...: Lemma 1's rate step on the pooled cluster,
//     then the paper's packing, as OCORP) and server-aware (FirstFit:
//     each job whole on the first server with its cores and memory free,
//     what the 2-D comparison uses).
//
// Every baseline is built like its family's policy, NewX(model, XSettings)
// (*X, error), with the zero XSettings the paper's baseline and a Logger
// in every settings type; the concrete type carries the snapshot methods,
// and ChangeCluster where the family has it (ogasched, esdp) or
// AddMachine/RemoveMachine (ocorp). MAX-FIRST and EQUAL-SHARE build a
// job's units themselves (MaxFirst.Units, EqualShare.Units), without an
// onsocmax.Policy.
//
// Decision lifetime: a decision returned by Decide, and every slice in it,
// is owned by the policy and valid until the next call of any method of
// that policy; copy what you keep. The policy never reads a returned
// decision back, so a caller that modifies it changes nothing the policy
// does later.
//
// Cluster changes are made in place on the policy, which keeps what it
// learned about what survives (the contract of package bipartite;
// ChangeCluster on every stateful baseline).
//
// Each policy's doc comment gives the paper's one-line definition and the
// precise reading msched chose where the paper leaves room. Baselines see the
// observation of the slot before deciding (OGASched's learner does not; see
// package ogasched), which favours them; results say so.
package baselines
