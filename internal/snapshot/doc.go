// Package snapshot is the one envelope in which every msched policy saves
// its learned state, so that a scheduler can restart without losing it.
//
// A snapshot is one JSON object:
//
//	{"format":"msched/ogasched.Policy","version":1,"model":"9f2c…","state":{…}}
//
// format names the package and type that wrote it, version the schema of
// state, and model a fingerprint of the model the policy was built on (its
// graph, capacities, settings: whatever decisions depend on). A policy
// restores only a snapshot whose format and version it knows and whose
// fingerprint equals that of the model it was itself built on; anything else
// (a different cluster, a truncated file, an unknown field, data after the
// object, a snapshot larger than MaxBytes) is an error, and the caller's
// policy is left unchanged because state is decoded into a fresh value that
// the caller validates before installing it.
//
// Fingerprints hash the exact bits of every number (FNV-1a, 64 bits), so
// two models fingerprint equal only if every value is bit-identical.
package snapshot
