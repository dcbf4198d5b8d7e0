package openb

import (
	"fmt"
	"strings"

	"k8s.io/klog/v2"
	config "k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/msched/msched/kube/internal/replay"
)

// Profile names a scheduler configuration compared on the trace.
type Profile string

// The profiles: kube-scheduler's default (NodeResourcesFit LeastAllocated),
// MostAllocated, and the default plus an msched score plugin.
const (
	LeastAllocated Profile = "LeastAllocated"
	MostAllocated  Profile = "MostAllocated"
	OGASched       Profile = "OGASched"
	DRF            Profile = "DRF"
	// ESDP is the default plus the ESDP score plugin (plugins/esdp). Its
	// slots run on the wall clock (slotSeconds 5 in the replay) and it
	// learns from finished pods, which the replay never reports (pods are
	// deleted, not completed), so its scores are its exploration alone.
	ESDP Profile = "ESDP"
	// Gang is the default plus the Gang plugin (plugins/gang): OpenB pods
	// carry no pod-group label, so it only adds its PreFilter/Permit
	// cost; kube/dlrm replays real gangs.
	Gang Profile = "Gang"
)

// Profiles lists every profile, in table order.
var Profiles = []Profile{LeastAllocated, MostAllocated, OGASched, DRF}

// GPUResource is the extended resource the trace's GPUs are exposed as:
// thousandths of a GPU, as Alibaba's GPU-sharing scheduler does
// (alibabacloud.com/gpu-milli); a node with g GPUs has 1000 g.
const GPUResource = "alibabacloud.com/gpu-milli"

// GPUModelLabel is the node label holding the GPU model; pods with a
// gpu_spec require it through node affinity.
const GPUModelLabel = "msched.io/gpu-model"

// configYAML returns the KubeSchedulerConfiguration of the profile (one
// profile, default-scheduler). Every profile scores all nodes
// (percentageOfNodesToScore 100) and counts GPUs in NodeResourcesFit's
// score, so that the baselines see the GPU dimension too.
func configYAML(p Profile, slotSeconds float64, weight int, statePath string) (string, error) {
	strategy := "LeastAllocated"
	if p == MostAllocated {
		strategy = "MostAllocated"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
`)
	// Every profile runs the GPU device model (kube/plugins/gpushare,
	// issue 32): Filter per GPU, GPU ids chosen at Reserve.
	b.WriteString("  plugins:\n    multiPoint: {enabled: [{name: GPUShare}]}\n")
	switch p {
	case LeastAllocated, MostAllocated:
	case ESDP:
		fmt.Fprintf(&b, `    preScore: {enabled: [{name: ESDP}]}
    score: {enabled: [{name: ESDP, weight: %d}]}
`, weight)
	case Gang:
		b.WriteString(`    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
`)
	case OGASched, DRF:
		name := string(p)
		fmt.Fprintf(&b, `    preFilter: {enabled: [{name: %[1]s}]}
    preScore: {enabled: [{name: %[1]s}]}
    score: {enabled: [{name: %[1]s, weight: %[2]d}]}
    postBind: {enabled: [{name: %[1]s}]}
`, name, weight)
	default:
		return "", fmt.Errorf("openb: unknown profile %q", p)
	}
	fmt.Fprintf(&b, `  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: %s
        resources:
        - {name: cpu, weight: 1}
        - {name: memory, weight: 1}
        - {name: %s, weight: 1}
`, strategy, GPUResource)
	if p == ESDP {
		writeMschedArgs(&b, string(ESDP), 5)
		b.WriteString("      stateStore: None\n")
	}
	if p == OGASched || p == DRF {
		writeMschedArgs(&b, string(p), slotSeconds)
		switch {
		case statePath != "" && p == OGASched:
			fmt.Fprintf(&b, "      statePath: %q\n", statePath)
		case p == OGASched:
			b.WriteString("      stateStore: None\n")
		}
	}
	return b.String(), nil
}

// writeMschedArgs writes the pluginConfig entry of an msched score
// plugin (ESDP, OGASched, DRF) on OpenB's resources (CPU in cores,
// memory in GiB, GPU milli in GPUs), 64 shapes, slots of slotSeconds; the
// caller appends the state lines.
func writeMschedArgs(b *strings.Builder, name string, slotSeconds float64) {
	fmt.Fprintf(b, `  - name: %s
    args:
      resources:
      - {name: cpu, unit: "1"}
      - {name: memory, unit: 1Gi}
      - {name: %s, unit: "1000"}
      maxPorts: 64
      slotSeconds: %g
`, name, GPUResource, slotSeconds)
}

// loadConfig decodes, converts and defaults a KubeSchedulerConfiguration
// the way the kube-scheduler binary does.
func loadConfig(logger klog.Logger, yaml string) (*config.KubeSchedulerConfiguration, error) {
	return replay.LoadConfig(logger, yaml)
}
