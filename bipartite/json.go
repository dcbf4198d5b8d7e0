package bipartite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/msched/msched/internal/strictjson"
)

// graphJSONVersion is the schema version written by MarshalJSON.
const graphJSONVersion = 1

type graphJSON struct {
	Version int        `json:"version"`
	Left    int        `json:"left"`
	Right   int        `json:"right"`
	Edges   []edgePair `json:"edges"`
}

// edgePair is one [l, r] of the edge list. Its decoder insists on exactly
// two integers ([], [0] and [0,0,7] are errors, where a [2]int silently
// took zeros or dropped the extra) and allocates nothing.
type edgePair [2]int

func (e *edgePair) UnmarshalJSON(b []byte) error {
	// encoding/json has already checked that b is one valid JSON value.
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return fmt.Errorf("%w: edge %s is not a pair [left, right]", ErrDimension, b)
	}
	inner := bytes.TrimSpace(b[1 : len(b)-1])
	i := bytes.IndexByte(inner, ',')
	switch {
	case len(inner) == 0:
		return fmt.Errorf("%w: edge %s has 0 entries, want a pair [left, right]", ErrDimension, b)
	case i < 0:
		return fmt.Errorf("%w: edge %s has 1 entry, want a pair [left, right]", ErrDimension, b)
	case bytes.IndexByte(inner[i+1:], ',') >= 0:
		return fmt.Errorf("%w: edge %s has more than 2 entries, want a pair [left, right]", ErrDimension, b)
	}
	for k, part := range [2][]byte{inner[:i], inner[i+1:]} {
		v, ok := parseInt(bytes.TrimSpace(part))
		if !ok {
			return fmt.Errorf("%w: edge %s: entry %s is not an integer that fits an int", ErrDimension, b, bytes.TrimSpace(part))
		}
		e[k] = v
	}
	return nil
}

// parseInt parses a JSON integer (optional minus, digits) that fits an
// int; ok is false for anything else (fractions, exponents, overflow).
func parseInt(b []byte) (v int, ok bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if u > (1<<63-d)/10 { // u*10+d > 1<<63
			return 0, false
		}
		u = u*10 + d
	}
	if neg {
		return -int(u), true // -(1<<63) wraps to MinInt64 exactly
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int(u), true
}

// MarshalJSON encodes g as {"version":1,"left":|L|,"right":|R|,"edges":[[l,r],...]}
// with edges in id order.
func (g *Graph) MarshalJSON() ([]byte, error) {
	gj := graphJSON{Version: graphJSONVersion, Left: g.numLeft, Right: g.numRight, Edges: make([]edgePair, len(g.edges))}
	for i, e := range g.edges {
		gj.Edges[i] = edgePair{e.Left, e.Right}
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
// unknown fields, keys given twice or spelled in another case
// (internal/strictjson), an edge that is not a pair (ErrDimension: [], [0],
// [0,0,7]) and anything but white space after the object. The sizes are
// checked against lim before any per-vertex table is allocated; the edge
// list itself is bounded by the length of b.
func (lim Limits) DecodeGraph(b []byte) (*Graph, error) {
	var gj graphJSON
	if err := strictjson.Check(b, &gj); err != nil {
		return nil, fmt.Errorf("%w: decoding graph: %w", ErrSyntax, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gj); err != nil {
		if errors.Is(err, ErrDimension) {
			return nil, fmt.Errorf("bipartite: decoding graph: %w", err)
		}
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
		edges[i] = Edge{e[0], e[1]}
	}
	return lim.NewGraph(gj.Left, gj.Right, edges)
}
