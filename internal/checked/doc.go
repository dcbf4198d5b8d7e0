// Package checked holds overflow-safe integer arithmetic for size
// computations: every product or sum of sizes that a user or a file declares
// (vertices × resources, nodes × slots, budgets × capacities, bytes of a DP
// table) goes through it before anything is allocated, so that an overflow
// becomes an error naming the field instead of a negative make() length, a
// panic or a silently wrong answer.
//
// The functions work on int (the type of Go lengths) and report ok = false
// when a result would not fit, or when an operand is negative: sizes are never
// negative, and a negative operand is treated like an overflow so that callers
// have one test to make.
package checked
