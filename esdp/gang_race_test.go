//go:build race

package esdp

// gangTestScale divides the sizes of the gang tests that check the
// mathematics on many instances: they are single-goroutine, so the race
// detector learns nothing from their full size.
const gangTestScale = 10
