//go:build race

package ocorp

// reachableSlots is the length of TestReachableStatesRestore's runs,
// shorter under the race detector.
const reachableSlots = 40
