package onsocmax

import "github.com/msched/msched/bipartite"

func newMeshOne(c float64) (*bipartite.Mesh, error) { return bipartite.NewMesh(1, 1, []float64{c}) }
