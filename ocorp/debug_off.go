//go:build !mscheddebug

package ocorp

// debugChecks is false in a normal build; see debug_on.go.
const debugChecks = false
