package dlrm

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"

	"github.com/msched/msched/kube/internal/replay"
)

// TestWithPermitClock: the clock joins the one profile's reserve list (the
// Gang profile has one) or gets a plugins entry (Default, Upstream), and
// the result loads as a KubeSchedulerConfiguration.
func TestWithPermitClock(t *testing.T) {
	for _, p := range []Profile{Default, Gang, Upstream} {
		y := configYAML(p, 5)
		if p == Upstream {
			y = upstreamOptions(Options{}).SchedulerConfig
		}
		out, err := withPermitClock(y)
		require.NoError(t, err, p)
		cfg, err := loadConfigForTest(out)
		require.NoError(t, err, "%s:\n%s", p, out)
		var names []string
		for _, pl := range cfg.Profiles[0].Plugins.Reserve.Enabled {
			names = append(names, pl.Name)
		}
		assert.Contains(t, names, PermitClockName, p)
		if p == Gang {
			assert.Contains(t, names, "Gang")
		}
	}
	_, err := withPermitClock("profiles: []\n")
	assert.Error(t, err)
}

func loadConfigForTest(y string) (*config.KubeSchedulerConfiguration, error) {
	return replay.LoadConfig(klog.Background(), y)
}

func TestQuantileAndGangTable(t *testing.T) {
	s := []int{0, 0, 1, 1, 2, 3, 3, 4, 9, 20}
	assert.Equal(t, 2, quantile(s, 0.5))
	assert.Equal(t, 20, quantile(s, 0.99))
	assert.Equal(t, 0, quantile(s, 0))
	var b bytes.Buffer
	WriteGangTable(&b, []*Result{{Profile: Gang, Groups: 3, Placed: 2, PlaceSlots: []int{0, 1}, PlaceWall: []time.Duration{time.Second, 2 * time.Second},
		PodsBound: 10, Wall: 5 * time.Second, Slots: 5, IdleGPUSeconds: 1.5}})
	out := b.String()
	for _, want := range []string{"2/3", "1.5", "1s", "2s", "1s"} {
		assert.True(t, strings.Contains(out, want), "%q in\n%s", want, out)
	}
}
