// Package conformance holds msched's generic conformance suite: one test,
// TestConformance, that runs every policy and baseline of every family
// (the gang policies included) through every promise of the README's
// contract table ("Use it in your scheduler"):
//
//   - determinism: two policies built alike decide the same, bit for bit;
//   - lifetime: a caller that overwrites every returned decision with
//     garbage right after Decide (before Observe) gets the same run as an
//     untouched twin, bit for bit (the policy never reads a decision back);
//   - snapshot: MarshalBinary and MarshalJSON give the same bytes; both
//     restore into a fresh policy on the same model and the restored
//     policies continue bit for bit;
//   - change: ChangeCluster with the family's Mapping (built by the model's
//     edit method) succeeds, a bad mapping fails with the family's
//     sentinel leaving the policy unchanged, and a snapshot taken after the
//     change restores into a policy built on the changed model and
//     continues bit for bit;
//   - logger: with Settings.Logger set, every record is one of the
//     messages decide, observe, rebuild, outcome with the attributes
//     family, policy (the policy's Name) and slot;
//   - errors: a stale slot, a malformed observation, a wrong Observe and
//     garbage snapshot bytes each fail with an error wrapping one of the
//     family's sentinels, and leave the policy exactly as it was (its
//     snapshot unchanged, its later run equal to an untouched twin's).
//
// The policies are listed in tables (one per family, in the test files):
// adding a policy to its family's table checks it against every promise
// with no new test code. The suite is test-only; this file exists so that
// the package has documentation. Run
//
//	go test -run TestConformance -v ./internal/conformance
//
// to print the policy × promise table.
package conformance
