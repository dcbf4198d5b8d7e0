package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/server/v3/embed"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// ControlPlane is a running etcd and kube-apiserver, both in this process,
// listening on 127.0.0.1 only.
type ControlPlane struct {
	// Config is an admin client configuration (bearer token in group
	// system:masters, TLS without verification: the serving certificate is
	// self-signed for this run).
	Config *rest.Config
	// Client is a clientset for Config.
	Client kubernetes.Interface
	// Kubeconfig is the path of a kubeconfig file for the same admin
	// identity, for processes (the scheduler binary).
	Kubeconfig string
	// URL is the API server's address, https://127.0.0.1:port.
	URL string
	// EtcdURL is etcd's client address, http://127.0.0.1:port.
	EtcdURL string
	// Dir is the run's temporary folder (removed by cleanup).
	Dir string
}

func init() {
	// Several API servers in one process (one per test) apply the same
	// logging options; upstream's test server does the same.
	logsapi.ReapplyHandling = logsapi.ReapplyHandlingIgnoreUnchanged
}

var quietOnce sync.Once

// quietKlog sends the in-process API server's klog output to
// MSCHED_E2E_LOG (a file) or nowhere, so that go test -v shows the tests'
// own lines.
func quietKlog() {
	quietOnce.Do(func() {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("logtostderr", "false")
		_ = fs.Set("alsologtostderr", "false")
		_ = fs.Set("stderrthreshold", "FATAL")
		var w io.Writer = io.Discard
		if p := os.Getenv("MSCHED_E2E_LOG"); p != "" {
			if f, err := os.Create(p); err == nil {
				w = f
			}
		}
		klog.LogToStderr(false)
		klog.SetOutput(w)
	})
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// StartControlPlane starts embedded etcd (go.etcd.io/etcd/server/v3/embed)
// and the real kube-apiserver (k8s.io/kubernetes/cmd/kube-apiserver/app)
// in this process, on free loopback ports, and waits until the API server
// is healthy and the default namespace exists. It skips the test, saying
// why, only when etcd or the API server cannot start; any later failure
// fails the test. cleanup stops both and removes their files (also
// registered with t.Cleanup, so calling it is optional; it is idempotent).
//
// The API server runs without a controller manager: endpoint reconciler
// none, admission plugins ServiceAccount and TaintNodesByCondition
// disabled, authorization RBAC with a static admin token, priority and
// fairness off, the GenericWorkload feature gate on and the
// scheduling.k8s.io/v1beta1 API group (Workload, PodGroup) served. Nothing marks nodes ready or runs pods: tests create Nodes
// with status.allocatable and read bindings (pod.spec.nodeName).
func StartControlPlane(t testing.TB) (*ControlPlane, func()) {
	t.Helper()
	quietKlog()
	t0 := time.Now()
	dir, err := os.MkdirTemp("", "msched-e2e-")
	if err != nil {
		t.Fatalf("e2e: temp dir: %v", err)
	}
	cp := &ControlPlane{Dir: dir}
	var stops []func()
	var once sync.Once
	cleanup := func() {
		once.Do(func() {
			t1 := time.Now()
			for i := len(stops) - 1; i >= 0; i-- {
				stops[i]()
			}
			os.RemoveAll(dir)
			t.Logf("e2e: control plane stopped in %.1fs", time.Since(t1).Seconds())
		})
	}
	t.Cleanup(cleanup)

	etcdURL, stopEtcd, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		cleanup()
		t.Skipf("e2e: embedded etcd cannot start here: %v", err)
	}
	stops = append(stops, stopEtcd)
	cp.EtcdURL = etcdURL

	token := randomHex(16)
	apiURL, stopAPI, err := startAPIServer(dir, etcdURL, token)
	if err != nil {
		cleanup()
		t.Skipf("e2e: kube-apiserver cannot start here: %v", err)
	}
	stops = append(stops, stopAPI)
	cp.URL = apiURL
	cp.Config = &rest.Config{
		Host:            apiURL,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           2000,
	}
	cp.Client, err = kubernetes.NewForConfig(cp.Config)
	if err != nil {
		cleanup()
		t.Fatalf("e2e: clientset: %v", err)
	}
	if err := waitReady(cp.Client); err != nil {
		cleanup()
		t.Skipf("e2e: kube-apiserver started but never became ready: %v", err)
	}
	cp.Kubeconfig = filepath.Join(dir, "admin.kubeconfig")
	if err := os.WriteFile(cp.Kubeconfig, []byte(kubeconfig(apiURL, token)), 0o600); err != nil {
		cleanup()
		t.Fatalf("e2e: writing kubeconfig: %v", err)
	}
	t.Logf("e2e: control plane up in %.1fs (etcd %s, kube-apiserver %s)", time.Since(t0).Seconds(), etcdURL, apiURL)
	return cp, cleanup
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func kubeconfig(server, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
`, server, token)
}

func startEtcd(dir string) (string, func(), error) {
	cport, err := freePort()
	if err != nil {
		return "", nil, err
	}
	pport, err := freePort()
	if err != nil {
		return "", nil, err
	}
	cfg := embed.NewConfig()
	cfg.Name = "e2e"
	cfg.Dir = dir
	cfg.LogLevel = "fatal" // its shutdown logs "server closed" errors
	cfg.LogOutputs = []string{"stderr"}
	cfg.UnsafeNoFsync = true
	cu, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(cport))
	pu, _ := url.Parse("http://127.0.0.1:" + strconv.Itoa(pport))
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return "", nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return "", nil, err
	case <-time.After(30 * time.Second):
		e.Close()
		return "", nil, errors.New("not ready after 30 s")
	}
	stop := func() {
		// Close waits for the API server's connections to drain (about
		// 7 s after it was cancelled); bound the wait like the server's.
		done := make(chan struct{})
		go func() { e.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	return cu.String(), stop, nil
}

var (
	gateOnce sync.Once
	gateErr  error
)

func startAPIServer(dir, etcdURL, token string) (string, func(), error) {
	certDir := filepath.Join(dir, "apiserver")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return "", nil, err
	}
	saKey := filepath.Join(certDir, "sa.key")
	if err := writeECKey(saKey); err != nil {
		return "", nil, err
	}
	tokens := filepath.Join(certDir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",e2e-admin,e2e-admin,system:masters\n"), 0o600); err != nil {
		return "", nil, err
	}

	// A registry of its own per server, as upstream's test server does, so
	// that several servers in one process do not share flag state.
	// Gangs on the upstream Workload API (KEP-4671, beta, off by default):
	// the gate (the process-wide one, which the API's storage reads, and so
	// each server's copy), the scheduling.k8s.io/v1beta1 group below.
	gateOnce.Do(func() { gateErr = utilfeature.DefaultMutableFeatureGate.Set("GenericWorkload=true") })
	if gateErr != nil {
		return "", nil, gateErr
	}
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	ev := compatibility.DefaultBuildEffectiveVersion()
	ev.SetEmulationVersion(featureGate.EmulationVersion())
	ev.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, ev, featureGate); err != nil {
		return "", nil, err
	}
	s := options.NewServerRunOptions()
	s.Options.GenericServerRunOptions.ComponentGlobalsRegistry = registry
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	s.SecureServing.Listener, s.SecureServing.BindPort = ln, port
	s.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")
	err = fs.Parse([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--cert-dir=" + certDir,
		"--token-auth-file=" + tokens,
		"--authorization-mode=RBAC",
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/16",
		"--service-account-issuer=https://e2e.msched.invalid",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--enable-priority-and-fairness=false",
		"--runtime-config=scheduling.k8s.io/v1beta1=true",
	})
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	if err := registry.Set(); err != nil {
		ln.Close()
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	fail := func(err error) (string, func(), error) {
		cancel()
		ln.Close()
		return "", nil, err
	}
	completed, err := s.Complete(ctx)
	if err != nil {
		return fail(err)
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return fail(utilerrors.NewAggregate(errs))
	}
	config, err := app.NewConfig(completed)
	if err != nil {
		return fail(err)
	}
	cc, err := config.Complete()
	if err != nil {
		return fail(err)
	}
	server, err := app.CreateServerChain(cc)
	if err != nil {
		return fail(err)
	}
	prepared, err := server.PrepareRun()
	if err != nil {
		return fail(err)
	}
	done := make(chan error, 1)
	go func() { done <- prepared.Run(ctx) }()
	stop := func() {
		cancel()
		// The graceful shutdown takes about 12 s (in-flight watches); the
		// next test does not need it finished, only this server's ports
		// and etcd, so wait a little and move on.
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}
	u := "https://127.0.0.1:" + strconv.Itoa(port)
	// Fail fast when Run returns at once (a port or storage problem).
	select {
	case err := <-done:
		cancel()
		return "", nil, fmt.Errorf("kube-apiserver exited: %w", err)
	case <-time.After(200 * time.Millisecond):
	}
	return u, stop, nil
}

// waitReady waits until /readyz answers ok and the default namespace
// exists (the bootstrap controllers have run).
func waitReady(c kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var last error
	for {
		body, err := c.CoreV1().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			if _, err = c.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err == nil {
				return nil
			}
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func writeECKey(path string) error {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
