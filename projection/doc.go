// Package projection implements exact Euclidean projections onto the capped
// simplex {y : 0 <= y <= u, sum y <= c}, one at a time (CappedSimplex) and
// for many independent blocks in parallel (Projector), with the paper's
// heuristic procedure beside it for reproduction (CappedSimplexPaper).
//
// Full documentation of the method and the measured comparison with the
// paper's procedure follows in a later commit.
package projection
