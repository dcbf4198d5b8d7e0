// Package config_test checks that the shipped KubeSchedulerConfiguration
// files load, validate and build a scheduler with msched's plugins, the
// way the kube-scheduler binary does.
package config_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"

	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/kube/plugins/ocorp"
	"github.com/msched/msched/kube/plugins/onsocmax"
)

func build(t *testing.T, path string, keep ...string) {
	t.Helper()
	logger, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cfg, err := options.LoadConfigFromFile(logger, path)
	require.NoError(t, err)
	require.NoError(t, validation.ValidateKubeSchedulerConfiguration(cfg))
	var profiles []config.KubeSchedulerProfile
	for _, p := range cfg.Profiles {
		if slices.Contains(keep, p.SchedulerName) {
			profiles = append(profiles, p)
		}
	}
	require.Len(t, profiles, len(keep))
	registry := frameworkruntime.Registry{
		esdp.Name: esdp.New, onsocmax.Name: onsocmax.New, ocorp.Name: ocorp.New, gang.Name: gang.New,
	}
	client := fake.NewClientset()
	_, err = scheduler.New(ctx, client, scheduler.NewInformerFactory(client, 0, nil), nil,
		profile.RecorderFactory(func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }),
		scheduler.WithProfiles(profiles...), scheduler.WithFrameworkOutOfTreeRegistry(registry))
	require.NoError(t, err)
}

func TestShippedConfigBuilds(t *testing.T) {
	build(t, "scheduler-config.yaml", "default-scheduler", "msched-esdp", "msched-onsocmax", "msched-gang")
}

func TestOCORPConfigBuilds(t *testing.T) {
	build(t, "scheduler-config-ocorp.yaml", "default-scheduler", "msched-ocorp")
}
