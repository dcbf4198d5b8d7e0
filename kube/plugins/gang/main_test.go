package gang

import (
	"os"
	"testing"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestMain turns the GenericWorkload gate on (the upstream Workload API,
// which the plugin reads first, and the pod group metrics
// BenchmarkGangPerf reads) and registers the scheduler's metrics, which
// the framework runtime records into.
func TestMain(m *testing.M) {
	if err := utilfeature.DefaultMutableFeatureGate.Set("GenericWorkload=true"); err != nil {
		panic(err)
	}
	metrics.Register()
	os.Exit(m.Run())
}
