package config_test

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/msched/msched/kube/plugins/ogasched"
)

// TestStateRBACNamesItsObjects: the state role granted update on every
// ConfigMap of kube-system. Get and update are now limited to the state
// objects of the shipped profiles (resourceNames), and the Lease of
// OnSocMax's writer election.
func TestStateRBACNamesItsObjects(t *testing.T) {
	b, err := os.ReadFile("state-rbac.yaml")
	require.NoError(t, err)
	docs := bytes.Split(b, []byte("\n---\n"))
	var role rbacv1.Role
	require.NoError(t, yaml.UnmarshalStrict(docs[0], &role))
	require.Equal(t, "Role", role.Kind)
	named := map[string][]string{}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v == "create" {
				continue // RBAC cannot limit create by name
			}
			require.NotEmpty(t, r.ResourceNames, "verb %s on %v without resourceNames", v, r.Resources)
			for _, res := range r.Resources {
				named[res+"/"+v] = append(named[res+"/"+v], r.ResourceNames...)
			}
		}
	}
	for _, name := range []string{
		ogasched.DefaultStateName("OGASched", "msched-ogasched"),
		ogasched.DefaultStateName("ESDP", "msched-esdp"),
		ogasched.DefaultStateName("OCORP", "msched-ocorp"),
	} {
		for _, v := range []string{"get", "update"} {
			require.True(t, slices.Contains(named["configmaps/"+v], name), "configmaps %s %s", v, name)
		}
	}
	for _, v := range []string{"get", "update"} {
		require.Contains(t, named["leases/"+v], "msched-onsocmax-msched-onsocmax")
	}
}
