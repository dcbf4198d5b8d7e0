package esdp

// Rebuild moves p onto the cluster cl, keeping what it learned about the
// channels that remain.
//
// Deprecated: use ChangeCluster, the cluster-change method every family
// shares; Rebuild(cl, ports, servers) is ChangeCluster(cl,
// Mapping{ports, servers}).
func (p *Policy) Rebuild(cl *Cluster, ports, servers []int) error {
	return p.ChangeCluster(cl, Mapping{Ports: ports, Servers: servers})
}

// ChangeCluster moves p, in place, onto the cluster cl built from p's
// current cluster (Cluster.AddPort, RemovePort, AddServer, RemoveServer
// build it with its Mapping m), under the cluster-change contract of
// package bipartite. m.Ports[l'] is the index in the current cluster of
// port l' of cl and m.Servers[r'] that of server r', -1 for a new one; a
// nil slice is the identity on the indices both clusters have. The channel
// (l', r') of cl keeps n_e and the reward sum of (m.Ports[l'],
// m.Servers[r']) if that channel exists now, and starts unplayed otherwise
// (so ESDP explores it: sigma^2 = +Inf). Demands may differ for a kept
// channel; its rewards are assumed to keep their distribution.
//
// The slot bookkeeping is kept: the next Decide still needs a t greater
// than the last one. A decision awaiting its Observe is dropped (observe
// it before the change to keep its feedback). m is recomputed from the
// settings given to New (ceil(Alpha |E|) unless Settings.M is set). A
// snapshot taken after the change restores into a policy built by New on
// cl (the current cluster); snapshots taken before it no longer restore
// into p. On error (invalid cl or mapping) p is unchanged.
func (p *Policy) ChangeCluster(cl *Cluster, m Mapping) error {
	ports, servers := m.Ports, m.Servers
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
