//go:build !race

package ocorp

// reachableSlots is the length of TestReachableStatesRestore's runs.
const reachableSlots = 150
