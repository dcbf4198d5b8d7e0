//go:build mscheddebug

package ocorp

// debugChecks is true in a debug build (-tags mscheddebug): every Decide
// checks that the decision it returns satisfies the family's constraints
// and panics if not (a bug, never a data error).
const debugChecks = true
