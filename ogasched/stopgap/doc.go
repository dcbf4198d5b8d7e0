// Package stopgap holds temporary stand-ins for the packages
// github.com/msched/msched/utility and github.com/msched/msched/projection,
// which are pinned project-wide but had not landed when package ogasched was
// written. The subpackages implement exactly the pinned names that ogasched
// uses, so switching is an import-path change; delete this directory then.
//
// Limitations: projection.CappedSimplex is exact by bisection on tau;
// CappedSimplexPaper is the same exact projection (the paper's inexact
// procedure is not reproduced here); Projector runs blocks sequentially.
package stopgap
