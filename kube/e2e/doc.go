// Package e2e runs msched's kube-scheduler against a real control plane:
// embedded etcd (go.etcd.io/etcd/server/v3/embed, the version Kubernetes
// v1.37.2 requires) and the real kube-apiserver
// (k8s.io/kubernetes/cmd/kube-apiserver/app) in the test process, the
// drop-in scheduler binary (./cmd/kube-scheduler, built with go build) as
// its own process, and client-go creating Nodes and Pods and reading
// bindings.
//
// # Harness
//
//	cp, cleanup := e2e.StartControlPlane(t) // skips only if etcd or the API server cannot start
//	defer cleanup()
//	sp := e2e.StartScheduler(t, cp, e2e.SchedulerConfig{Profiles: profilesYAML, LeaderElect: true})
//	sp.WaitLog(t, "...", 30*time.Second)
//	e2e.CreateNodes(t, cp, e2e.Node("n1", 8, 32, 1))
//	e2e.CreatePods(t, cp, e2e.Pod("default", "p1", "msched-ogasched", 500, 256, 0, nil))
//	bound := e2e.WaitBound(t, cp, "default", []string{"p1"}, 30*time.Second)
//
// The control plane has no controller manager and no kubelets: nodes are
// API objects with an allocatable, pods are bound and never run. Each test
// starts its own control plane (a few seconds); the scheduler binary is
// built once per test process (MSCHED_E2E_SCHEDULER names a prebuilt one).
// The API server's klog output goes to MSCHED_E2E_LOG (a file) or nowhere;
// a scheduler's output is printed when its test fails.
//
// These tests run in go test ./... (CI's kube step); a cold build compiles
// the API server and etcd as well as the scheduler.
package e2e
