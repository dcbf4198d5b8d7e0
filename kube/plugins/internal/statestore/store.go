package statestore

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
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
)

// ErrState is wrapped by every error reading a saved state that exists
// but cannot be used.
var ErrState = errors.New("msched kube: invalid saved state")

// ErrShared is wrapped by the error of Claim when another profile or
// another plugin of the same profile holds the object.
var ErrShared = errors.New("msched kube: state object shared by two plugins")

// ErrConflict is wrapped by the error of ConfigMap.Save when the object
// changed since this store last read or wrote it: another writer (a
// second deployment with the same profile names, an operator replacing
// it, a stale leader) wrote it. The save is not done; the caller reloads.
var ErrConflict = errors.New("msched kube: state object changed by another writer")

// ConfigMap keys of a saved state: plain when it is small, gzipped in
// binaryData otherwise.
const (
	DataKey        = "state.json"
	GzipKey        = "state.json.gz"
	plainMax       = 256 << 10
	configMapLimit = 1000 << 10 // the API server refuses objects past ~1 MiB
	maxInflated    = 64 << 20
	// Label marks the ConfigMaps that hold msched learned state.
	Label = "msched.io/state"
)

// Store kinds (the stateStore argument of the plugins).
const (
	KindConfigMap = "ConfigMap"
	KindFile      = "File"
	KindNone      = "None"
	// DefaultNamespace is the default namespace of the state ConfigMaps.
	DefaultNamespace = "kube-system"
)

// Store keeps one profile's learned state outside the process.
type Store interface {
	// Load returns the saved bytes; ok is false when nothing is saved.
	Load(ctx context.Context) (b []byte, ok bool, err error)
	// Save replaces the saved bytes with b.
	Save(ctx context.Context, b []byte) error
	// String names the object ("configmap ns/name", "file /path").
	String() string
}

// ConfigMap keeps the state in the ConfigMap Namespace/Name, annotated
// with the profile and plugin that own it and the writer (WriterAnnotation).
//
// It remembers the resourceVersion of the object it last read or wrote,
// and Save updates only that version (an optimistic-concurrency
// precondition): a write by anyone else in between makes Save fail with
// ErrConflict instead of being overwritten. An object deleted in between
// is created again by Save (deleting the object while the plugin runs
// does not reset it: the plugin's memory is saved again; delete it while
// the scheduler is stopped to start fresh). Safe for concurrent use.
type ConfigMap struct {
	Client          kubernetes.Interface
	Namespace, Name string
	Profile, Plugin string

	mu    sync.Mutex
	known bool   // the object existed at the last read or write
	rv    string // its resourceVersion then
}

// WriterAnnotation names the process that wrote a state ConfigMap last
// (host name and process ID), reported in ErrConflict errors.
const WriterAnnotation = "msched.io/writer"

// writer identifies this process in WriterAnnotation.
var writer = func() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%s/%d", h, os.Getpid())
}()

func (s *ConfigMap) String() string { return "configmap " + s.Namespace + "/" + s.Name }

// Load implements Store.
func (s *ConfigMap) Load(ctx context.Context) ([]byte, bool, error) {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		s.setRV(false, "")
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	s.setRV(true, cm.ResourceVersion)
	if b, ok := cm.BinaryData[GzipKey]; ok {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, false, fmt.Errorf("%w: %s: binaryData[%s]: %w", ErrState, s, GzipKey, err)
		}
		// Bound the decompressed size: 64 MiB is far past any valid state.
		out, err := io.ReadAll(io.LimitReader(zr, maxInflated+1))
		if err != nil {
			return nil, false, fmt.Errorf("%w: %s: binaryData[%s]: %w", ErrState, s, GzipKey, err)
		}
		if len(out) > maxInflated {
			return nil, false, fmt.Errorf("%w: %s: binaryData[%s] inflates past %d bytes", ErrState, s, GzipKey, maxInflated)
		}
		return out, true, nil
	}
	if v, ok := cm.Data[DataKey]; ok {
		return []byte(v), true, nil
	}
	return nil, false, fmt.Errorf("%w: %s has neither data[%s] nor binaryData[%s]", ErrState, s, DataKey, GzipKey)
}

func (s *ConfigMap) setRV(known bool, rv string) {
	s.mu.Lock()
	s.known, s.rv = known, rv
	s.mu.Unlock()
}

// Save implements Store: it updates the version of the ConfigMap this
// store last read or wrote, or creates it when there was none (or it was
// deleted since). It fails with ErrConflict, writing nothing, when the
// object changed in between or was created by someone else.
func (s *ConfigMap) Save(ctx context.Context, b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Namespace: s.Namespace, Name: s.Name,
		Labels:      map[string]string{Label: "true"},
		Annotations: map[string]string{"msched.io/profile": s.Profile, "msched.io/plugin": s.Plugin, WriterAnnotation: writer},
	}}
	if len(b) <= plainMax {
		cm.Data = map[string]string{DataKey: string(b)}
	} else {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		if err := zw.Close(); err != nil {
			return err
		}
		if buf.Len() > configMapLimit {
			return fmt.Errorf("%s: state is %d bytes gzipped, above the %d a ConfigMap holds", s, buf.Len(), configMapLimit)
		}
		cm.BinaryData = map[string][]byte{GzipKey: buf.Bytes()}
	}
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	var out *v1.ConfigMap
	var err error
	if s.known {
		cm.ResourceVersion = s.rv
		out, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) { // deleted since: create it again
			cm.ResourceVersion = ""
			out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
		}
	} else {
		out, err = cms.Create(ctx, cm, metav1.CreateOptions{})
	}
	switch {
	case apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err):
		who := "unknown"
		if cur, gerr := cms.Get(ctx, s.Name, metav1.GetOptions{}); gerr == nil {
			who = fmt.Sprintf("resourceVersion %s, %s %q", cur.ResourceVersion, WriterAnnotation, cur.Annotations[WriterAnnotation])
		}
		return fmt.Errorf("%w: %s: this writer (%s) last saw resourceVersion %q, the object is now at %s; not overwriting it",
			ErrConflict, s, writer, s.rv, who)
	case err != nil:
		return err
	}
	s.known, s.rv = true, out.ResourceVersion
	return nil
}

// File keeps the state in a local file: not shared between replicas.
type File struct{ Path string }

func (s *File) String() string { return "file " + s.Path }

// Load implements Store.
func (s *File) Load(context.Context) ([]byte, bool, error) {
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	return b, err == nil, err
}

// Save implements Store, through a temporary file and a rename so that a
// crash never leaves a truncated state.
func (s *File) Save(_ context.Context, b []byte) error { return WriteFileAtomic(s.Path, b) }

// WriteFileAtomic writes b to path through a temporary file in the same
// folder and a rename.
func WriteFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// DefaultName returns the name of the ConfigMap holding the learned state
// of plugin in profile: "msched-<plugin>-<profile>", lower-cased,
// characters a ConfigMap name cannot hold replaced by '-', cut to 253
// characters.
func DefaultName(plugin, profile string) string {
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

// Validate checks the ConfigMap/None store arguments, each problem under
// path: kind in kinds, namespace a DNS-1123 label, name (when set) a
// DNS-1123 subdomain.
func Validate(path *field.Path, kind, namespace, name string, kinds ...string) field.ErrorList {
	var all field.ErrorList
	ok := false
	for _, k := range kinds {
		ok = ok || k == kind
	}
	if !ok {
		all = append(all, field.NotSupported(path.Child("stateStore"), kind, kinds))
	}
	for _, msg := range validation.IsDNS1123Label(namespace) {
		all = append(all, field.Invalid(path.Child("stateNamespace"), namespace, msg))
	}
	if name != "" {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			all = append(all, field.Invalid(path.Child("stateName"), name, msg))
		}
	}
	return all
}

// claims records which profile and plugin use which state object, per
// API client (one scheduler process has one client for all its profiles).
var claims = struct {
	sync.Mutex
	m map[claimKey]owner
}{m: map[claimKey]owner{}}

type claimKey struct {
	client any
	object string
}

type owner struct{ profile, plugin string }

// Claim registers the state object (Store.String()) for plugin in
// profile; it fails with ErrShared, naming both owners, when another
// profile, or another plugin of the same profile, already holds it
// through the same client. The same plugin of the same profile may claim
// it again. release undoes the claim. A nil client claims nothing.
func Claim(client any, object, profile, plugin string) (release func(), err error) {
	if client == nil {
		return func() {}, nil
	}
	if p, ok := strings.CutPrefix(object, "file "); ok {
		if abs, err := filepath.Abs(p); err == nil {
			object = "file " + abs
		}
	}
	k := claimKey{client, object}
	me := owner{profile, plugin}
	claims.Lock()
	defer claims.Unlock()
	if other, ok := claims.m[k]; ok && other != me {
		return nil, fmt.Errorf("%w: %s is already the state of plugin %s in profile %q; plugin %s in profile %q cannot share it: give one of them another stateName",
			ErrShared, object, other.plugin, other.profile, plugin, profile)
	}
	claims.m[k] = me
	return func() {
		claims.Lock()
		if claims.m[k] == me {
			delete(claims.m, k)
		}
		claims.Unlock()
	}, nil
}

// SaveTimeout bounds one Save.
const SaveTimeout = 10 * time.Second

// Save writes b to s within SaveTimeout.
func Save(ctx context.Context, s Store, b []byte) error {
	sctx, cancel := context.WithTimeout(ctx, SaveTimeout)
	defer cancel()
	return s.Save(sctx, b)
}
