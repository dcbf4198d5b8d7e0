//go:build !unix

package snapshot

func cpuSeconds() float64 { return 0 }
