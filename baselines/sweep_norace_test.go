//go:build !race

package baselines_test

// sweepBits bounds the bits TestSnapshotBitFlipSweep flips per snapshot.
const sweepBits = 1 << 16
