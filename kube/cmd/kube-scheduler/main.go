// Command kube-scheduler is the upstream kube-scheduler with msched's score
// plugins (OGASched, DRF) registered, the scheduler-plugins pattern. Enable
// them in a profile of a KubeSchedulerConfiguration (see
// config/scheduler-config.yaml) and run it as the upstream binary:
//
//	kube-scheduler --config=scheduler-config.yaml --kubeconfig=...
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // JSON log format, as upstream
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/kube/plugins/gpushare"
	"github.com/msched/msched/kube/plugins/ocorp"
	"github.com/msched/msched/kube/plugins/ogasched"
	"github.com/msched/msched/kube/plugins/onsocmax"
)

func main() {
	cmd := app.NewSchedulerCommand(
		app.WithPlugin(ogasched.OGASchedName, ogasched.NewOGASched),
		app.WithPlugin(ogasched.DRFName, ogasched.NewDRF),
		app.WithPlugin(gpushare.Name, gpushare.New),
		app.WithPlugin(esdp.Name, esdp.New),
		app.WithPlugin(onsocmax.Name, onsocmax.New),
		app.WithPlugin(ocorp.Name, ocorp.New),
		app.WithPlugin(gang.Name, gang.New),
	)
	os.Exit(cli.Run(cmd))
}
