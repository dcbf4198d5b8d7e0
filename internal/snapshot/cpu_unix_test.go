//go:build unix

package snapshot

import "syscall"

// cpuSeconds returns the process's user and system CPU time so far: on a
// loaded machine the benchmark reports it beside the wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
