// Package onsocmax is a kube-scheduler plugin that admits jobs by
// OnSocMax's marginal-cost pricing (paper 001, Theorem 2; package
// github.com/msched/msched/onsocmax).
//
// # Usage
//
// A pod of the profile declares its value and, optionally, its deadline:
//
//	metadata:
//	  annotations:
//	    msched.io/value: "12.5"                  # (0, 1e12]
//	    msched.io/deadline: "2026-11-26T06:00:00Z" # RFC 3339, optional
//
// Enable the plugin at preEnqueue and reserve (config/scheduler-config.yaml,
// profile msched-onsocmax).
//
// # Decision
//
// Each priced resource k (Args.Resources) has the cluster capacity C_k,
// the sum of the allocatable of the schedulable nodes, and a committed
// usage omega_k, the demand of the jobs admitted and not yet finished. A
// job with demand a_k (effective requests) and declared value V is
// admitted when
//
//	V >= sum_k Phi_k(omega_k/C_k, a_k/C_k),  Phi the integral of phi from omega to omega + a
//
// with phi the price of Theorem 2 on the cluster share (Iota up to the
// threshold, then exponential up to V at full commitment, +Inf past it;
// onsocmax.Pricing with Args.Iota and Args.V). This is the paper's
// non-partitionable variant (Section III-D) with a linear utility: the job
// takes its whole demand or nothing, and takes it when its net welfare
// V - Phi is non-negative. Iota and V are in value per whole-cluster share.
//
// # Extension points, and why
//
//   - PreEnqueue decides: it runs before a pod enters the scheduling queue,
//     so a job that is not admitted never takes a scheduling cycle. A pod
//     not admitted gets UnschedulableAndUnresolvable, which gates it in the
//     scheduler (the queue's gated state, the same one spec.schedulingGates
//     use) until one of EventsToRegister's events (a pod deleted or
//     scaled down, a node added or grown) re-runs PreEnqueue. Verdicts:
//     Admitted; PriceAboveValue (not yet admitted: re-priced when capacity
//     frees or nodes join, until the deadline; also a job larger than the
//     cluster's current capacity); Refused (final: missing or invalid
//     annotation, deadline passed). A held job with a deadline is
//     activated at its deadline (Handle.Activate), so PreEnqueue refuses
//     it then rather than at the next event. The value must be a decimal
//     number (hexadecimal such as 0x1p2, Inf, NaN and underscores are
//     refused). Each verdict change is written, off the scheduling path,
//     as the pod condition msched.io/Admitted (True/False with the reason
//     and a message giving value and cost) and an Event: the writer keeps
//     the latest unwritten verdict of each pod (never dropped; bounded by
//     the pods the informer knows) and retries a failed write every
//     second.
//   - One writer: PreEnqueue runs on every replica, standbys included
//     (their queues fill before leadership), and kube-scheduler does not
//     tell plugins which replica leads. The replica holding the Lease
//     LeaseNamespace/msched-onsocmax-<schedulerName> (its own election,
//     kube-scheduler's default timings, released on shutdown) is the only
//     one that writes conditions and events; the others decide and keep
//     their ledgers but write nothing. The writer may be a standby of the
//     scheduler's own election; both ledgers follow the same informer
//     events. The scheduler needs get and update on that Lease and create
//     on leases (config/state-rbac.yaml).
//   - Reserve/Unreserve keep the ledger: Reserve moves the job's demand
//     from admitted to reserved, Unreserve moves it back (the job keeps its
//     admission and is retried). A pod that terminates or is deleted
//     (informer) leaves the ledger.
//
// # Deviations from the paper
//
// The paper's jobs arrive in slots and are dispatched over a mesh of
// (node, future slot) units until their deadline, with partial workloads.
// kube-scheduler binds a whole pod now, on one node; so the plugin prices
// the cluster-wide share (which node is the other plugins' choice), admits
// whole jobs now, and uses the deadline only as the time until which a
// job priced out may wait for prices to fall. Usage is committed by this
// profile's jobs only; pods of other profiles are not priced (they show up
// in node fit, not in prices). The ledger is in memory and rebuilt after a
// restart from the bound pods of the profile (informer); admitted pods
// not yet bound are priced again.
package onsocmax
