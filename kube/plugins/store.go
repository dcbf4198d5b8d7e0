package plugins

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
)

// ConfigMap keys of a saved state: plain JSON when it is small, gzipped
// JSON in binaryData otherwise.
const (
	stateDataKey   = "state.json"
	stateGzipKey   = "state.json.gz"
	plainStateMax  = 256 << 10
	configMapLimit = 1000 << 10 // the API server refuses objects past ~1 MiB
	// StateLabel marks the ConfigMaps that hold msched learned state.
	StateLabel = "msched.io/state"
)

// stateStore keeps one profile's learned state outside the process.
type stateStore interface {
	// load returns the saved bytes; ok is false when nothing is saved.
	load(ctx context.Context) (b []byte, ok bool, err error)
	save(ctx context.Context, b []byte) error
	String() string
}

// configMapStore keeps the state in a ConfigMap: shared by every replica,
// so the leader after a failover continues from it.
type configMapStore struct {
	client          kubernetes.Interface
	namespace, name string
	profile, plugin string
}

func (s *configMapStore) String() string { return "configmap " + s.namespace + "/" + s.name }

func (s *configMapStore) load(ctx context.Context) ([]byte, bool, error) {
	cm, err := s.client.CoreV1().ConfigMaps(s.namespace).Get(ctx, s.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if b, ok := cm.BinaryData[stateGzipKey]; ok {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false, fmt.Errorf("%w: %s: binaryData[%s]: %w", ErrState, s, stateGzipKey, err)
		}
		// Bound the decompressed size: 64 MiB is far past any valid state
		// of LimitPorts ports on a large cluster.
		out, err := io.ReadAll(io.LimitReader(zr, 64<<20))
		if err != nil {
			return nil, false, fmt.Errorf("%w: %s: binaryData[%s]: %w", ErrState, s, stateGzipKey, err)
		}
		return out, true, nil
	}
	if v, ok := cm.Data[stateDataKey]; ok {
		return []byte(v), true, nil
	}
	return nil, false, fmt.Errorf("%w: %s has neither data[%s] nor binaryData[%s]", ErrState, s, stateDataKey, stateGzipKey)
}

func (s *configMapStore) save(ctx context.Context, b []byte) error {
	cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: s.namespace, Name: s.name,
		Labels:      map[string]string{StateLabel: "true"},
		Annotations: map[string]string{"msched.io/profile": s.profile, "msched.io/plugin": s.plugin},
	}}
	if len(b) <= plainStateMax {
		cm.Data = map[string]string{stateDataKey: string(b)}
	} else {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		if err := zw.Close(); err != nil {
			return err
		}
		if buf.Len() > configMapLimit {
			return fmt.Errorf("%s: state is %d bytes gzipped, above the %d a ConfigMap holds (fewer maxPorts, or statePath)", s, buf.Len(), configMapLimit)
		}
		cm.BinaryData = map[string][]byte{stateGzipKey: buf.Bytes()}
	}
	cms := s.client.CoreV1().ConfigMaps(s.namespace)
	old, err := cms.Get(ctx, s.name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	}
	// Only the leader schedules, and only it saves: overwrite whatever is
	// there (resourceVersion of the object just read).
	cm.ResourceVersion = old.ResourceVersion
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// fileStore keeps the state in a local file (deprecated args.statePath):
// not shared between replicas.
type fileStore struct{ path string }

func (s *fileStore) String() string { return "file " + s.path }

func (s *fileStore) load(context.Context) ([]byte, bool, error) {
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func (s *fileStore) save(_ context.Context, b []byte) error { return writeFileAtomic(s.path, b) }

// DefaultStateName returns the name of the ConfigMap holding the learned
// state of plugin in profile when Args.StateName is empty:
// "msched-<plugin>-<profile>", lower-cased, characters a ConfigMap name
// cannot hold replaced by '-', cut to 253 characters.
func DefaultStateName(plugin, profile string) string {
	s := strings.ToLower("msched-" + plugin + "-" + profile)
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	s = strings.TrimRight(string(b), "-.")
	if len(s) > validation.DNS1123SubdomainMaxLength {
		s = strings.TrimRight(s[:validation.DNS1123SubdomainMaxLength], "-.")
	}
	return s
}

// claims records which profile uses which state object, per API client
// (one scheduler process has one client for all its profiles), so that two
// profiles cannot share one state object.
var claims = struct {
	sync.Mutex
	m map[claimKey]string
}{m: map[claimKey]string{}}

type claimKey struct {
	client any
	object string
}

// claim registers object for profile; it fails when another profile of the
// same scheduler already holds it. release undoes it.
func claim(client any, object, profile string) (release func(), err error) {
	if client == nil {
		return func() {}, nil
	}
	if p, err := filepath.Abs(strings.TrimPrefix(object, "file ")); err == nil && strings.HasPrefix(object, "file ") {
		object = "file " + p
	}
	k := claimKey{client, object}
	claims.Lock()
	defer claims.Unlock()
	if other, ok := claims.m[k]; ok && other != profile {
		return nil, fmt.Errorf("%s is already the state of profile %q: two profiles cannot share one state object", object, other)
	}
	claims.m[k] = profile
	return func() {
		claims.Lock()
		if claims.m[k] == profile {
			delete(claims.m, k)
		}
		claims.Unlock()
	}, nil
}
