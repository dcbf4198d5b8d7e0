package ogasched

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/internal/strictjson"
	"github.com/msched/msched/utility"
)

// encodingVersion is the schema version of Problem and Trace JSON.
const encodingVersion = 1

type problemJSON struct {
	Version  int                 `json:"version"`
	Graph    json.RawMessage     `json:"graph"`
	K        int                 `json:"k"`
	Demand   [][]float64         `json:"demand"`
	Capacity [][]float64         `json:"capacity"`
	Utility  [][]utility.Utility `json:"utility"`
	Beta     []float64           `json:"beta"`
}

// graphHeader is the part of the graph JSON read before decoding it.
type graphHeader struct {
	Left  int               `json:"left"`
	Right int               `json:"right"`
	Edges []json.RawMessage `json:"edges"`
}

// decodeStrict decodes exactly one JSON value from b into v, rejecting
// unknown fields and trailing data.
func decodeStrict(b []byte, v any, what string) error {
	if err := strictjson.Check(b, v); err != nil {
		return fmt.Errorf("%w: decoding %s: %w", ErrValue, what, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: decoding %s: %w", ErrValue, what, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: decoding %s: trailing data after the JSON value", ErrValue, what)
	}
	return nil
}

// MarshalJSON encodes the instance as {"version":1,"graph":...,"k":K,
// "demand":[[a_l^k]],"capacity":[[c_r^k]],"utility":[[f_r^k]],"beta":[beta_k]}.
func (p *Problem) MarshalJSON() ([]byte, error) {
	g, err := json.Marshal(p.Graph)
	if err != nil {
		return nil, err
	}
	return json.Marshal(problemJSON{encodingVersion, g, p.K, p.Demand, p.Capacity, p.Utility, p.Beta})
}

// UnmarshalJSON decodes and validates an instance written by MarshalJSON.
// Unknown fields and trailing data are errors. The declared sizes are
// checked before anything is allocated: ports and nodes at most
// MaxVertices, K at most MaxK, |E| K at most MaxDim; then NewProblem's
// rules apply.
func (p *Problem) UnmarshalJSON(b []byte) error {
	var v problemJSON
	if err := decodeStrict(b, &v, "problem"); err != nil {
		return err
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: problem version %d, want %d", ErrVersion, v.Version, encodingVersion)
	}
	if v.K != len(v.Beta) {
		return fmt.Errorf("%w: k = %d but len(beta) = %d", ErrDimension, v.K, len(v.Beta))
	}
	if v.K > MaxK {
		return fmt.Errorf("%w: k = %d, limit %d", ErrDimension, v.K, MaxK)
	}
	if len(v.Graph) == 0 || string(v.Graph) == "null" {
		return fmt.Errorf("%w: no graph", ErrDimension)
	}
	var h graphHeader
	if err := json.Unmarshal(v.Graph, &h); err != nil {
		return fmt.Errorf("%w: decoding graph: %w", ErrValue, err)
	}
	if h.Left < 0 || h.Left > MaxVertices || h.Right < 0 || h.Right > MaxVertices {
		return fmt.Errorf("%w: graph declares left = %d, right = %d, want 0..%d each", ErrDimension, h.Left, h.Right, MaxVertices)
	}
	if !checked.Within(MaxDim, len(h.Edges), max(1, v.K)) {
		return fmt.Errorf("%w: %d edges x k = %d above the dimension limit %d", ErrDimension, len(h.Edges), v.K, MaxDim)
	}
	g := new(bipartite.Graph)
	if err := json.Unmarshal(v.Graph, g); err != nil {
		return fmt.Errorf("%w: graph: %w", ErrValue, err)
	}
	q, err := NewProblem(g, v.Demand, v.Capacity, v.Utility, v.Beta)
	if err != nil {
		return err
	}
	*p = *q
	return nil
}

type traceJSON struct {
	Version  int         `json:"version"`
	Ports    int         `json:"ports"`
	Arrivals [][]float64 `json:"arrivals"`
}

// MarshalJSON encodes {"version":1,"ports":L,"arrivals":[[x_l(t)]]}.
func (tr *Trace) MarshalJSON() ([]byte, error) {
	return json.Marshal(traceJSON{encodingVersion, tr.Ports, tr.Arrivals})
}

// UnmarshalJSON decodes and validates a trace written by MarshalJSON (see
// Trace.Validate: ports at least 1, every row of that length, counts finite
// and non-negative). Unknown fields and trailing data are errors.
func (tr *Trace) UnmarshalJSON(b []byte) error {
	var v traceJSON
	if err := decodeStrict(b, &v, "trace"); err != nil {
		return err
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: trace version %d, want %d", ErrVersion, v.Version, encodingVersion)
	}
	t := Trace{Ports: v.Ports, Arrivals: v.Arrivals}
	if err := t.Validate(); err != nil {
		return err
	}
	*tr = t
	return nil
}
