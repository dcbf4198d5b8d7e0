package statestore

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
)

// TestConfigMapRoundTrip: small states are saved as plain data, large ones
// gzipped; both load back byte for byte, and a second save overwrites.
func TestConfigMapRoundTrip(t *testing.T) {
	ctx := context.Background()
	cs := clientsetfake.NewClientset()
	s := &ConfigMap{Client: cs, Namespace: "kube-system", Name: "st", Profile: "p", Plugin: "ESDP"}
	_, found, err := s.Load(ctx)
	require.NoError(t, err)
	require.False(t, found)

	small := []byte(`{"a":1}`)
	require.NoError(t, Save(ctx, s, small))
	cm, err := cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "st", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, string(small), cm.Data[DataKey])
	require.Equal(t, "true", cm.Labels[Label])
	require.Equal(t, "p", cm.Annotations["msched.io/profile"])
	b, found, err := s.Load(ctx)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, small, b)

	// Large and compressible: goes to binaryData, and replaces the plain key.
	large := bytes.Repeat([]byte("0123456789abcdef"), 40<<10)
	require.NoError(t, Save(ctx, s, large))
	cm, err = cs.CoreV1().ConfigMaps("kube-system").Get(ctx, "st", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotContains(t, cm.Data, DataKey)
	require.Less(t, len(cm.BinaryData[GzipKey]), len(large)/10)
	b, found, err = s.Load(ctx)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, large, b)

	// Incompressible past the ConfigMap limit: refused, the old state kept.
	noise := make([]byte, 2<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.Uint32())
	}
	require.ErrorContains(t, Save(ctx, s, noise), "above the")
	b, _, err = s.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, large, b)
}

// TestConfigMapCorrupt: a ConfigMap without the state keys or with bad
// gzip is an ErrState error (not retried), and Load never changes it.
func TestConfigMapCorrupt(t *testing.T) {
	ctx := context.Background()
	for name, cm := range map[string]*v1.ConfigMap{
		"no keys":  {Data: map[string]string{"other": "x"}},
		"bad gzip": {BinaryData: map[string][]byte{GzipKey: []byte("not gzip")}},
	} {
		cm.Namespace, cm.Name = "ns", "st"
		cs := clientsetfake.NewClientset(cm)
		s := &ConfigMap{Client: cs, Namespace: "ns", Name: "st"}
		_, found, err := s.Load(ctx)
		require.ErrorIs(t, err, ErrState, name)
		require.False(t, found, name)
		got, err := cs.CoreV1().ConfigMaps("ns").Get(ctx, "st", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, cm.Data, got.Data, name)
		require.Equal(t, cm.BinaryData, got.BinaryData, name)
	}
}

func TestFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := &File{Path: filepath.Join(t.TempDir(), "state.json")}
	_, found, err := s.Load(ctx)
	require.NoError(t, err)
	require.False(t, found)
	require.NoError(t, Save(ctx, s, []byte("x")))
	b, found, err := s.Load(ctx)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, []byte("x"), b)
}

// TestClaim: one object per profile and client, whatever the plugin;
// other clients (other schedulers) are independent; release frees it.
func TestClaim(t *testing.T) {
	c1, c2 := new(int), new(int)
	rel, err := Claim(c1, "configmap kube-system/s", "a", "ESDP")
	require.NoError(t, err)
	_, err = Claim(c1, "configmap kube-system/s", "b", "ESDP")
	require.ErrorIs(t, err, ErrShared)
	require.ErrorContains(t, err, `profile "a"`)
	_, err = Claim(c2, "configmap kube-system/s", "b", "ESDP")
	require.NoError(t, err)
	again, err := Claim(c1, "configmap kube-system/s", "a", "ESDP")
	require.NoError(t, err, "the same profile may claim its object again")
	again()
	rel()
	_, err = Claim(c1, "configmap kube-system/s", "b", "ESDP")
	require.NoError(t, err)
	// Two spellings of one file are one object.
	dir := t.TempDir()
	_, err = Claim(c1, "file "+filepath.Join(dir, "f"), "a", "OGASched")
	require.NoError(t, err)
	_, err = Claim(c1, "file "+filepath.Join(dir, ".", "f"), "b", "OGASched")
	require.True(t, errors.Is(err, ErrShared))
}

func TestDefaultNameAndValidate(t *testing.T) {
	require.Equal(t, "msched-esdp-my-profile", DefaultName("ESDP", "My_Profile"))
	require.Empty(t, Validate(field.NewPath("args"), KindConfigMap, "kube-system", "", KindConfigMap, KindNone))
	errs := Validate(field.NewPath("args"), "Etcd", "Bad_NS", "UPPER", KindConfigMap, KindNone)
	require.Len(t, errs, 3)
}

// TestClaimTwoPluginsOneProfile: two msched plugins of one profile naming
// one object overwrote each other's state; the second is refused with an
// error naming both.
func TestClaimTwoPluginsOneProfile(t *testing.T) {
	c := new(int)
	_, err := Claim(c, "configmap kube-system/shared", "p", "ESDP")
	require.NoError(t, err)
	_, err = Claim(c, "configmap kube-system/shared", "p", "OGASched")
	require.ErrorIs(t, err, ErrShared)
	require.ErrorContains(t, err, `plugin ESDP in profile "p"; plugin OGASched in profile "p" cannot share it`)
}
