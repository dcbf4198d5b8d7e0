package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SchedulerConfig is what StartScheduler needs to run one replica of the
// msched kube-scheduler binary.
type SchedulerConfig struct {
	// Name tells replicas apart in logs and file names ("a", "b", ...);
	// default "scheduler".
	Name string
	// Profiles is the YAML of the profiles list of a
	// KubeSchedulerConfiguration, written as top-level list items ("- schedulerName: ...").
	// The harness writes the rest of the file: apiVersion, kind,
	// clientConnection.kubeconfig (the control plane's) and leaderElection.
	// Ignored when Config is set.
	Profiles string
	// Config, when set, is a whole KubeSchedulerConfiguration YAML used as
	// is, after replacing every ${KUBECONFIG} with the control plane's
	// kubeconfig path.
	Config string
	// LeaderElect turns on leader election (a Lease named LeaseName in
	// kube-system, default "msched-e2e") with short timings: lease 3 s,
	// renew deadline 2 s, retry 500 ms.
	LeaderElect bool
	LeaseName   string
	// Args are extra command-line arguments (e.g. "--v=4").
	Args []string
}

// SchedulerProcess is a running kube-scheduler binary.
type SchedulerProcess struct {
	Name       string
	Cmd        *exec.Cmd
	ConfigPath string
	// Port is its secure serving port on 127.0.0.1 (/healthz, /metrics).
	Port int

	mu     sync.Mutex
	log    bytes.Buffer
	exited chan struct{}
	err    error
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// SchedulerBinary returns the path of the msched kube-scheduler binary,
// building it once per test process with go build (ldflags as in
// LDFlags) into a temporary folder; MSCHED_E2E_SCHEDULER names a prebuilt
// binary instead. A build failure fails the test (it is not a reason to
// skip).
func SchedulerBinary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("MSCHED_E2E_SCHEDULER"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "msched-e2e-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "kube-scheduler")
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		t0 := time.Now()
		cmd := exec.Command("go", "build", "-ldflags", LDFlags(), "-o", buildPath, "./cmd/kube-scheduler")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./cmd/kube-scheduler: %w\n%s", err, out)
			return
		}
		fmt.Fprintf(os.Stderr, "e2e: built %s in %.1fs\n", buildPath, time.Since(t0).Seconds())
	})
	if buildErr != nil {
		t.Fatalf("e2e: %v", buildErr)
	}
	return buildPath
}

// E2EVersion is the msched version stamped into the binary the e2e suite
// builds; TestE2EVersion checks that --version prints it.
const E2EVersion = "v0.0.0-e2e"

// LDFlags returns the -ldflags of the documented build (README): the
// Kubernetes version the binary embeds with msched's version as semver
// build metadata, e.g. v1.37.2+msched.v0.0.0-e2e, so that --version and
// the kubernetes_build_info metric say which msched it is. The Kubernetes
// binary version (feature gates, emulation) comes from a constant, not
// from this string.
func LDFlags() string {
	return "-X k8s.io/component-base/version.gitVersion=v1.37.2+msched." + E2EVersion
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the kube module (go env GOMOD = %q)", gomod)
	}
	return filepath.Dir(gomod), nil
}

// StartScheduler writes the configuration of cfg and starts the scheduler
// binary as its own process against cp (--config only: the kubeconfig is
// inside the configuration, as the README documents). The process is
// killed at the end of the test; its output is kept (Log) and printed when
// the test fails.
func StartScheduler(t testing.TB, cp *ControlPlane, cfg SchedulerConfig) *SchedulerProcess {
	t.Helper()
	bin := SchedulerBinary(t)
	if cfg.Name == "" {
		cfg.Name = "scheduler"
	}
	if cfg.LeaseName == "" {
		cfg.LeaseName = "msched-e2e"
	}
	text := cfg.Config
	if text == "" {
		text = fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${KUBECONFIG}
  qps: 200
  burst: 400
leaderElection:
  leaderElect: %t
  leaseDuration: 3s
  renewDeadline: 2s
  retryPeriod: 500ms
  resourceName: %s
  resourceNamespace: kube-system
profiles:
%s`, cfg.LeaderElect, cfg.LeaseName, cfg.Profiles)
	}
	text = strings.ReplaceAll(text, "${KUBECONFIG}", cp.Kubeconfig)
	path := filepath.Join(cp.Dir, "scheduler-"+cfg.Name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatalf("e2e: writing scheduler config: %v", err)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("e2e: free port: %v", err)
	}
	args := append([]string{"--config=" + path, "--secure-port=" + strconv.Itoa(port), "--bind-address=127.0.0.1"}, cfg.Args...)
	sp := &SchedulerProcess{Name: cfg.Name, ConfigPath: path, Port: port, exited: make(chan struct{})}
	sp.Cmd = exec.Command(bin, args...)
	sp.Cmd.Stdout = (*lockedWriter)(sp)
	sp.Cmd.Stderr = (*lockedWriter)(sp)
	if err := sp.Cmd.Start(); err != nil {
		t.Fatalf("e2e: starting %s: %v", bin, err)
	}
	go func() {
		err := sp.Cmd.Wait()
		sp.mu.Lock()
		sp.err = err
		sp.mu.Unlock()
		close(sp.exited)
	}()
	t.Cleanup(func() {
		sp.Kill()
		if t.Failed() {
			t.Logf("scheduler %s output:\n%s", sp.Name, sp.Log())
		}
	})
	return sp
}

type lockedWriter SchedulerProcess

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.log.Write(b)
}

// Log returns everything the process printed so far.
func (sp *SchedulerProcess) Log() string {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.log.String()
}

// Kill sends SIGKILL (a crash: no lease release, no final save) and waits
// for the process to exit. It is idempotent.
func (sp *SchedulerProcess) Kill() {
	if sp.Cmd.Process != nil {
		_ = sp.Cmd.Process.Kill()
	}
	<-sp.exited
}

// Stop sends SIGTERM and waits up to 10 s for a clean exit, then kills.
func (sp *SchedulerProcess) Stop() {
	if sp.Cmd.Process != nil {
		_ = sp.Cmd.Process.Signal(syscall.SIGTERM)
	}
	select {
	case <-sp.exited:
	case <-time.After(10 * time.Second):
		sp.Kill()
	}
}

// Exited is closed when the process has exited.
func (sp *SchedulerProcess) Exited() <-chan struct{} { return sp.exited }

// WaitLog waits until the process's output contains substr, and fails the
// test after timeout or when the process exits first.
func (sp *SchedulerProcess) WaitLog(t testing.TB, substr string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	for {
		if strings.Contains(sp.Log(), substr) {
			return
		}
		select {
		case <-sp.exited:
			if strings.Contains(sp.Log(), substr) {
				return
			}
			t.Fatalf("e2e: scheduler %s exited (%v) before logging %q; output:\n%s", sp.Name, sp.err, substr, sp.Log())
		case <-ctx.Done():
			t.Fatalf("e2e: scheduler %s did not log %q within %v; output:\n%s", sp.Name, substr, timeout, sp.Log())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
