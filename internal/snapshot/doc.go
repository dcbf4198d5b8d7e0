// Package snapshot is the one envelope in which every msched policy saves
// its learned state, so that a scheduler can restart without losing it.
//
// A snapshot is one JSON object:
//
//	{"format":"msched/ogasched.Policy","version":1,"model":"9f2c…",
//	 "check":"sha256:5d41…","state":{…}}
//
// format names the package and type that wrote it, version the schema of
// state, model a fingerprint of the model the policy was built on (its
// graph, capacities, settings: whatever decisions depend on), and check the
// SHA-256 of the canonical state bytes: state passed through json.Compact,
// so that re-indenting a snapshot keeps it valid while any other change to
// state does not.
//
// # What Decode refuses
//
// A policy restores only a snapshot whose format and version it knows and
// whose fingerprint equals that of the model it was itself built on.
// Anything else is an error: a different cluster (ErrModel), another format
// or version (ErrFormat), and, wrapping ErrCorrupt, a truncated file, data
// after the object, a snapshot larger than MaxBytes, a key given twice,
// spelled in another case or unknown (at the envelope and inside state,
// checked with internal/strictjson), a state field left out, a check that
// does not match the state, and a snapshot without a check (written before
// the check existed: such snapshots are refused, not trusted). The
// caller's policy is left unchanged because state is decoded into a fresh
// value that the caller validates before installing it.
//
// # Cost
//
// Decode reads a snapshot in three linear passes and one decode, none of
// them copying it: one checks the syntax, the nesting depth (at most
// strictjson.MaxDepth) and the keys of the whole snapshot and finds the
// state; one hashes the state's bytes that json.Compact keeps; one walks
// the state against the type it decodes into (keys, required fields); the
// last decodes it. A 1 GiB snapshot (MaxBytes) is refused or restored in
// seconds, and memory is that of the decoded state plus the walk's frames:
// see BenchmarkDecode (MSCHED_BENCH_GIB=1 for the 1 GiB case).
//
// # Accidents and adversaries
//
// The check guards against accidents: a flipped bit, a truncated or
// hand-edited file, a copy that lost a line. It is not a signature: anyone
// who edits state can recompute it (Reseal does exactly that, for tests).
// What keeps a crafted snapshot from hanging or corrupting a policy is the
// semantic validation each family runs on the decoded state before
// installing it: every number finite and within the bounds a run on that
// model and those settings can reach, and the parts consistent with each
// other (lengths, indices, slots, counters). A restore that passes both is a
// state the policy could have reached by itself; the next Decide never
// finds out it was restored. Protect snapshots at rest and in transit
// (file permissions, an authenticated store) if an adversary may write
// them.
//
// Fingerprints hash the exact bits of every number (FNV-1a, 64 bits), so
// two models fingerprint equal only if every value is bit-identical.
package snapshot
