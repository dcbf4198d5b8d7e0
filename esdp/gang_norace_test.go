//go:build !race

package esdp

// gangTestScale divides the sizes of the gang tests that check the
// mathematics on many instances (10 under the race detector).
const gangTestScale = 1
