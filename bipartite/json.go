package bipartite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// graphJSONVersion is the schema version written by MarshalJSON.
const graphJSONVersion = 1

type graphJSON struct {
	Version int     `json:"version"`
	Left    int     `json:"left"`
	Right   int     `json:"right"`
	Edges   [][]int `json:"edges"`
}

// MarshalJSON encodes g as {"version":1,"left":|L|,"right":|R|,"edges":[[l,r],...]}
// with edges in id order.
func (g *Graph) MarshalJSON() ([]byte, error) {
	gj := graphJSON{Version: graphJSONVersion, Left: g.numLeft, Right: g.numRight, Edges: make([][]int, len(g.edges))}
	for i, e := range g.edges {
		gj.Edges[i] = []int{e.Left, e.Right}
	}
	return json.Marshal(gj)
}

// UnmarshalJSON decodes and validates a graph written by MarshalJSON, with
// the default Limits; see Limits.DecodeGraph.
func (g *Graph) UnmarshalJSON(b []byte) error {
	ng, err := Limits{}.DecodeGraph(b)
	if err != nil {
		return err
	}
	*g = *ng
	return nil
}

// DecodeGraph decodes one JSON graph {"version":1,"left":|L|,"right":|R|,
// "edges":[[l,r],...]} and validates it as lim.NewGraph does. It rejects
// unknown fields, an edge that is not a pair (ErrDimension: [], [0],
// [0,0,7]) and anything but white space after the object. The sizes are
// checked against lim before any per-vertex table is allocated; the edge
// list itself is bounded by the length of b.
func (lim Limits) DecodeGraph(b []byte) (*Graph, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var gj graphJSON
	if err := dec.Decode(&gj); err != nil {
		return nil, fmt.Errorf("%w: decoding graph: %w", ErrSyntax, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the graph object at byte %d", ErrSyntax, dec.InputOffset())
	}
	if gj.Version != graphJSONVersion {
		return nil, fmt.Errorf("%w: version %d, want %d", ErrVersion, gj.Version, graphJSONVersion)
	}
	if err := lim.CheckGraph(gj.Left, gj.Right, len(gj.Edges)); err != nil {
		return nil, err
	}
	edges := make([]Edge, len(gj.Edges))
	for i, e := range gj.Edges {
		if len(e) != 2 {
			return nil, fmt.Errorf("%w: edges[%d] has %d entries %v, want a pair [left, right]", ErrDimension, i, len(e), e)
		}
		edges[i] = Edge{e[0], e[1]}
	}
	return lim.NewGraph(gj.Left, gj.Right, edges)
}
