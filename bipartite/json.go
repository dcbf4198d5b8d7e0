package bipartite

import (
	"encoding/json"
	"fmt"
)

// graphJSONVersion is the schema version written by MarshalJSON.
const graphJSONVersion = 1

type graphJSON struct {
	Version int      `json:"version"`
	Left    int      `json:"left"`
	Right   int      `json:"right"`
	Edges   [][2]int `json:"edges"`
}

// MarshalJSON encodes g as {"version":1,"left":|L|,"right":|R|,"edges":[[l,r],...]}
// with edges in id order.
func (g *Graph) MarshalJSON() ([]byte, error) {
	gj := graphJSON{Version: graphJSONVersion, Left: g.numLeft, Right: g.numRight, Edges: make([][2]int, len(g.edges))}
	for i, e := range g.edges {
		gj.Edges[i] = [2]int{e.Left, e.Right}
	}
	return json.Marshal(gj)
}

// UnmarshalJSON decodes and validates a graph written by MarshalJSON.
func (g *Graph) UnmarshalJSON(b []byte) error {
	var gj graphJSON
	if err := json.Unmarshal(b, &gj); err != nil {
		return fmt.Errorf("bipartite: decoding graph: %w", err)
	}
	if gj.Version != graphJSONVersion {
		return fmt.Errorf("%w: %d, want %d", ErrVersion, gj.Version, graphJSONVersion)
	}
	edges := make([]Edge, len(gj.Edges))
	for i, e := range gj.Edges {
		edges[i] = Edge{e[0], e[1]}
	}
	ng, err := NewGraph(gj.Left, gj.Right, edges)
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}
