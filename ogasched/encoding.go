package ogasched

import (
	"encoding/json"
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// encodingVersion is the schema version of Problem and Trace JSON.
const encodingVersion = 1

type problemJSON struct {
	Version  int                 `json:"version"`
	Graph    *bipartite.Graph    `json:"graph"`
	K        int                 `json:"k"`
	Demand   [][]float64         `json:"demand"`
	Capacity [][]float64         `json:"capacity"`
	Utility  [][]utility.Utility `json:"utility"`
	Beta     []float64           `json:"beta"`
}

// MarshalJSON encodes the instance as {"version":1,"graph":...,"k":K,
// "demand":[[a_l^k]],"capacity":[[c_r^k]],"utility":[[f_r^k]],"beta":[beta_k]}.
func (p *Problem) MarshalJSON() ([]byte, error) {
	return json.Marshal(problemJSON{encodingVersion, p.Graph, p.K, p.Demand, p.Capacity, p.Utility, p.Beta})
}

// UnmarshalJSON decodes and validates an instance written by MarshalJSON.
func (p *Problem) UnmarshalJSON(b []byte) error {
	var v problemJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: problem version %d", ErrVersion, v.Version)
	}
	if v.K != len(v.Beta) {
		return fmt.Errorf("%w: k = %d but len(beta) = %d", ErrDimension, v.K, len(v.Beta))
	}
	q, err := NewProblem(v.Graph, v.Demand, v.Capacity, v.Utility, v.Beta)
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

// UnmarshalJSON decodes and validates a trace written by MarshalJSON.
func (tr *Trace) UnmarshalJSON(b []byte) error {
	var v traceJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: trace version %d", ErrVersion, v.Version)
	}
	t := Trace{Ports: v.Ports, Arrivals: v.Arrivals}
	if err := t.Validate(); err != nil {
		return err
	}
	*tr = t
	return nil
}
