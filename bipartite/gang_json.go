package bipartite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/msched/msched/internal/strictjson"
)

// gangJSONVersion is the schema version written by GangModel.MarshalJSON.
const gangJSONVersion = 1

type gangJSON struct {
	Version  int             `json:"version"`
	Graph    json.RawMessage `json:"graph"`
	K        int             `json:"k"`
	Capacity []float64       `json:"capacity"`
	Jobs     []GangJob       `json:"jobs"`
}

// MarshalJSON encodes m as
//
//	{"version":1,"graph":{…Graph…},"k":K,"capacity":[c at r*K+k],
//	 "jobs":[{"demand":[a at q*K+k],"min":m_l},…]}
//
// with every job's Min as given to NewGangModel in effect (|Q_l| where it
// was zero), so that any other tool can solve the same instance.
func (m *GangModel) MarshalJSON() ([]byte, error) {
	g, err := m.g.MarshalJSON()
	if err != nil {
		return nil, err
	}
	jobs := make([]GangJob, m.NumJobs())
	for l := range jobs {
		lo, hi := m.Components(l)
		jobs[l] = GangJob{Demand: m.demand[lo*m.k : hi*m.k], Min: m.min[l]}
	}
	return json.Marshal(gangJSON{Version: gangJSONVersion, Graph: g, K: m.k, Capacity: m.capacity, Jobs: jobs})
}

// UnmarshalJSON decodes and validates a gang model written by MarshalJSON,
// with the default Limits; see Limits.DecodeGangModel.
func (m *GangModel) UnmarshalJSON(b []byte) error {
	nm, err := Limits{}.DecodeGangModel(b)
	if err != nil {
		return err
	}
	*m = *nm
	return nil
}

// DecodeGangModel decodes one JSON gang model (the schema of
// GangModel.MarshalJSON) and validates it as lim.NewGangModel does. It
// rejects unknown fields, keys given twice or spelled in another case, a
// version other than 1 (ErrVersion) and anything but white space after the
// object (ErrSyntax); the graph is decoded by lim.DecodeGraph. Every slice
// is bounded by the length of b.
func (lim Limits) DecodeGangModel(b []byte) (*GangModel, error) {
	var gj gangJSON
	if err := strictjson.Check(b, &gj); err != nil {
		return nil, fmt.Errorf("%w: decoding gang model: %w", ErrSyntax, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&gj); err != nil {
		return nil, fmt.Errorf("%w: decoding gang model: %w", ErrSyntax, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%w: data after the gang model object at byte %d", ErrSyntax, dec.InputOffset())
	}
	if gj.Version != gangJSONVersion {
		return nil, fmt.Errorf("%w: gang model version %d, want %d", ErrVersion, gj.Version, gangJSONVersion)
	}
	if len(gj.Graph) == 0 || string(gj.Graph) == "null" {
		return nil, fmt.Errorf("%w: gang model without a graph", ErrNil)
	}
	g, err := lim.DecodeGraph(gj.Graph)
	if err != nil {
		return nil, fmt.Errorf("bipartite: gang model graph: %w", err)
	}
	return lim.NewGangModel(g, gj.K, gj.Capacity, gj.Jobs)
}
