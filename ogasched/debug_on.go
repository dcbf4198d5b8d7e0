//go:build mscheddebug

package ogasched

// debugChecks is true in a debug build (-tags mscheddebug): every Decide
// and Observe checks that the decision satisfies (5)-(6) and panics if not.
const debugChecks = true
