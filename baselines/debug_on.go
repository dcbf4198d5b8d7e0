//go:build mscheddebug

package baselines

// debugChecks is true in a debug build (-tags mscheddebug): every Decide
// of DRF, FAIRNESS, BINPACKING/SPREADING, the ESDP baselines, Tetris,
// MAX-FIRST and EQUAL-SHARE checks the decision against its family's
// constraints and panics if not.
const debugChecks = true
