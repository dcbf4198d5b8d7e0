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
// Claim refuses two profiles of one scheduler (one API client), or two
// plugins of one profile, sharing one state object. LoadInto reads a
// state until the plugin can use it, telling apart an unreachable store
// (retried with backoff), Forbidden (retried slowly) and an invalid
// object (never written; read again until it is replaced or deleted).
// Save bounds a write with a timeout.
//
// Decisions: ConfigMap.Save updates only the resourceVersion the store
// last read or wrote (an optimistic-concurrency precondition), so a
// write by anyone else in between fails with ErrConflict instead of being
// overwritten; the plugins then load the object again (it wins: another
// leader's or an operator's state). An object deleted while a plugin
// runs is created again by its next save. WriterAnnotation names the
// process that wrote last. A state that cannot be read is reported as an
// error wrapping ErrState and the caller must not overwrite it.
package statestore
