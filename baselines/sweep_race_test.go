//go:build race

package baselines_test

// sweepBits bounds the bits TestSnapshotBitFlipSweep flips per snapshot:
// a sample under the race detector (see the test).
const sweepBits = 1 << 9
