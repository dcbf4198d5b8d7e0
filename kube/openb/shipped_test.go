package openb

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/msched/msched/kube/plugins"
	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/kube/plugins/onsocmax"
)

// TestShippedConfig loads config/scheduler-config.yaml with the binary's
// loader and builds a scheduler from it with the plugins registered as
// cmd/kube-scheduler registers them: the args decode and validate.
func TestShippedConfig(t *testing.T) {
	cfg, err := options.LoadConfigFromFile(testLogger(t), "../config/scheduler-config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Profiles) != 6 {
		t.Fatalf("%d profiles, want 6 (default, OGASched, DRF, ESDP, OnSocMax, Gang)", len(cfg.Profiles))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewClientset()
	registry := frameworkruntime.Registry{plugins.OGASchedName: plugins.NewOGASched, plugins.DRFName: plugins.NewDRF,
		esdp.Name: esdp.New, onsocmax.Name: onsocmax.New, gang.Name: gang.New}
	recorders := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	s, err := scheduler.New(ctx, client, scheduler.NewInformerFactory(client, 0, nil), nil, profile.RecorderFactory(recorders),
		scheduler.WithProfiles(cfg.Profiles...), scheduler.WithFrameworkOutOfTreeRegistry(registry))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"default-scheduler", "msched-ogasched", "msched-drf", "msched-esdp", "msched-onsocmax", "msched-gang"} {
		if _, ok := s.Profiles[name]; !ok {
			t.Errorf("profile %s missing", name)
		}
	}
}
