//go:build !mscheddebug

package baselines

// debugChecks is false in a normal build; see debug_on.go.
const debugChecks = false
