// Package statestore keeps the learned state of an msched kube-scheduler
// plugin outside the scheduler process, shared by the plugins of
// kube/plugins (OGASched, ESDP, OCORP).
//
// A Store holds the bytes of one profile's state. ConfigMap keeps them in
// a ConfigMap of the API server (data["state.json"] up to 256 KiB, else
// gzipped in binaryData["state.json.gz"], refused past about 1 MiB), so
// every scheduler replica reads the same object and a standby that takes
// over the leader lease continues from what the old leader saved last.
// File keeps them in a local file (OGASched's deprecated statePath).
//
// Claim refuses two profiles of one scheduler (one API client) sharing one
// state object, whatever plugins they belong to. Load retries a failing
// read a few times; Save bounds a write with a timeout.
//
// Decisions: a save overwrites the object unconditionally (only the leader
// schedules, and only a plugin that has scheduled saves); a state that
// cannot be read is reported as an error wrapping ErrState and the caller
// must not overwrite it.
package statestore
