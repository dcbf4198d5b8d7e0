package esdp

// Rebuild moves p onto the cluster cl (servers or ports added or removed,
// capacities or demands changed), keeping what it learned about the
// channels that remain. ports[l'] is the index in the current cluster of
// port l' of cl and servers[r'] that of server r', -1 for a new one; nil is
// the identity on the indices both clusters have. The channel (l', r') of
// cl keeps n_e and the reward sum of (ports[l'], servers[r']) if that
// channel exists now, and starts unplayed otherwise (so ESDP explores it:
// sigma^2 = +Inf). Demands may differ for a kept channel; its rewards are
// assumed to keep their distribution.
//
// The slot bookkeeping is kept: the next Decide still needs a t greater
// than the last one. A decision awaiting its Observe is dropped (observe
// it before Rebuild to keep its feedback). m is recomputed from the
// settings given to New (ceil(Alpha |E|) unless Settings.M is set), and
// snapshots taken before Rebuild no longer restore into p (the model
// changed). On error (invalid cl or maps) p is unchanged.
func (p *Policy) Rebuild(cl *Cluster, ports, servers []int) error {
	np, err := New(cl, p.set)
	if err != nil {
		return err
	}
	st, err := p.stats.Carry(p.cl.Graph, np.cl.Graph, ports, servers)
	if err != nil {
		return err
	}
	np.stats = st
	np.started, np.lastT = p.started, p.lastT
	*p = *np
	return nil
}
