package esdp_test

import (
	"encoding/json"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/esdp"
)

// FuzzRunInstance decodes an instance and runs ESDP and every baseline for
// a few slots: decoding and running may fail with an error, never panic,
// exhaust memory or hang (issue 12). Small sizes only are simulated.
func FuzzRunInstance(f *testing.F) {
	const g = `{"version":1,"left":2,"right":2,"edges":[[0,0],[0,1],[1,1]]}`
	f.Add([]byte(`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2],[1]],"capacity":[2],"cost":[0.5,0.4,0.1],"mean":[0.5,0.7,0.2],"std":[0.1,0.2,0.3],"arrival":[0.9,1]}`))
	f.Add([]byte(`{"version":1,"graph":` + g + `,"k":1,"demand":[[9223372036854775807],[9223372036854775807],[9223372036854775806]],"capacity":[9223372036854775807],"cost":[0,0,0],"mean":[1e308,-1e308,0],"std":[1e308,0,0],"arrival":[1,1]}`))
	f.Add([]byte(`{"version":1,"graph":` + g + `,"k":2,"demand":[[1,3],[2,1],[1,1]],"capacity":[1,2],"cost":[0,0,0],"mean":[0.5,0.5,0.5],"std":[0,0,0],"arrival":[1,0]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1000000000,"right":1,"edges":[]},"k":1}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":9223372036854775807,"right":9223372036854775807,"edges":[[0,0]]},"k":64}`))
	f.Add([]byte(`{"version":1,"graph":` + g + `,"k":0,"demand":[[],[],[]],"capacity":[],"cost":[0,0,0],"mean":[0,0,0],"std":[0,0,0],"arrival":[0,0]} trailing`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var in esdp.Instance
		if err := json.Unmarshal(b, &in); err != nil {
			return
		}
		if in.NumEdges() > 24 || in.NumPorts() > 16 {
			return
		}
		cl := &in.Cluster
		set := esdp.OracleSettings{MaxBytes: 1 << 24, MaxNodes: 1 << 14}
		var pols []esdp.OnlinePolicy
		if p, err := esdp.New(cl, esdp.Settings{Oracle: set}); err == nil {
			pols = append(pols, p)
		}
		if p, err := baselines.NewHSWF(cl, baselines.HSWFSettings{}); err == nil {
			pols = append(pols, p)
		}
		if p, err := baselines.NewLCF(cl, baselines.LCFSettings{}); err == nil {
			pols = append(pols, p)
		}
		if p, err := baselines.NewLWTF(cl, baselines.LWTFSettings{}); err == nil {
			pols = append(pols, p)
		}
		if p, err := baselines.NewCUCB(cl, baselines.CUCBSettings{Oracle: set}); err == nil {
			pols = append(pols, p)
		}
		if p, err := baselines.NewThompson(cl, baselines.ThompsonSettings{Seed: 1, Stream: 1, Oracle: set}); err == nil {
			pols = append(pols, p)
		}
		esdp.Run(&in, pols, esdp.RunSettings{T: 4, Seed: 1, Workers: 1}) // an error is fine
	})
}
