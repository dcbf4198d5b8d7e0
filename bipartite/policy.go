package bipartite

// OnlinePolicy is the contract every online scheduling policy of msched
// satisfies, whether a paper's algorithm or a baseline. At each time slot t
// the caller hands the policy an observation and receives a decision. The
// observation and decision types are defined by each algorithm family.
//
// Implementations are not safe for concurrent use unless documented.
// Decide returns an error only for data errors (an observation that does not
// match the problem the policy was built for). Decision lifetime: a
// decision returned by Decide, and every slice in it, is owned by the
// policy and valid until the next call of any method of that policy; copy
// what you keep. The policy never reads a returned decision back, so a
// caller that modifies it changes nothing the policy does later. Policies
// can therefore reuse buffers and allocate nothing per slot.
type OnlinePolicy[Obs, Dec any] interface {
	// Name returns a short human-readable identifier, e.g. "OGASched".
	Name() string
	// Decide returns the decision for slot t given the observation.
	Decide(t int, obs Obs) (Dec, error)
}

// Learner is implemented by policies that learn from feedback revealed after
// a decision (realised rewards, observed service rates, ...).
type Learner[Fb any] interface {
	// Observe feeds back what was revealed at the end of slot t.
	Observe(t int, fb Fb) error
}
