// Package baselines implements the heuristics the msched papers compare
// their algorithms against, on the same bipartite.OnlinePolicy contract as
// the algorithms themselves, so that a simulator runs them side by side on
// the same arrivals.
//
// Files are grouped by family:
//
//   - ogasched*.go: DRF, FAIRNESS, BINPACKING, SPREADING (paper 000);
//   - onsocmax*.go: MAX-FIRST, EQUAL-SHARE (paper 001);
//   - esdp*.go: HSWF, LCF, LWTF (papers 002/003), and CUCB and Thompson
//     sampling with the exact knapsack oracle; esdp_gang*.go: their gang
//     versions GangHSWF, GangLCF, GangLWTF on a bipartite.GangModel
//     (esdp.GangOnlinePolicy), each placing a job whole or not at all:
//     the job's components in decreasing best v^, each on its fitting
//     channel of highest v^, and the job kept only with at least m_l
//     components (otherwise undone, holding no capacity);
//   - ocorp*.go: SRPT, SRVF, SVF, SRF (paper 004) and Tetris.
//
// Each policy's doc comment gives the paper's one-line definition and the
// precise reading msched chose where the paper leaves room. Baselines see the
// observation of the slot before deciding (OGASched's learner does not; see
// package ogasched), which favours them; results say so.
package baselines
