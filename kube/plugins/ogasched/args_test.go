package ogasched

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestDecodeArgsDefaults(t *testing.T) {
	a, err := decodeArgs(nil, OGASchedName)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Resources) != 3 || a.Resources[1].Name != "memory" || a.Resources[1].Unit != "1Gi" {
		t.Errorf("Resources = %v, want the defaults", a.Resources)
	}
	if a.MaxPorts != DefaultMaxPorts || a.SlotSeconds != DefaultSlotSeconds || a.Utility != DefaultUtility || *a.Beta != DefaultBeta || a.UtilityCoefficient != 1 {
		t.Errorf("defaults not applied: %+v", a)
	}
}

func TestDecodeArgsYAML(t *testing.T) {
	raw := []byte("resources:\n- {name: cpu}\n- {name: example.com/fpga, unit: \"2\"}\nportLabel: team\nslotSeconds: 5\nbeta: 0\n")
	a, err := decodeArgs(&runtime.Unknown{Raw: raw, ContentType: runtime.ContentTypeYAML}, OGASchedName)
	if err != nil {
		t.Fatal(err)
	}
	if a.Resources[0].Unit != "1" || a.Resources[1].Name != "example.com/fpga" || a.PortLabel != "team" || a.SlotSeconds != 5 || *a.Beta != 0 {
		t.Errorf("decoded %+v", a)
	}
}

func TestValidateArgsCollectsEveryProblem(t *testing.T) {
	a := &Args{
		Resources:          []ResourceSpec{{Name: "cpu", Unit: "1"}, {Name: "cpu", Unit: "-1"}, {Name: "", Unit: "x"}},
		MaxPorts:           -3,
		SlotSeconds:        -1,
		Utility:            "cubic",
		UtilityCoefficient: 1,
		Beta:               ptr.To(1.5),
	}
	err := ValidateArgs(field.NewPath("args"), a)
	if err == nil {
		t.Fatal("no error for invalid args")
	}
	for _, want := range []string{
		"args.resources[1].name: Duplicate value",
		"args.resources[1].unit: Invalid value: \"-1\"",
		"args.resources[2].name: Required",
		"args.resources[2].unit: Invalid value: \"x\"",
		"args.maxPorts: Invalid value: -3",
		"args.slotSeconds: Invalid value: -1",
		"args.utility: Unsupported value: \"cubic\"",
		"args.beta: Invalid value: 1.5",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	if _, err := decodeArgs(a, OGASchedName); err == nil || !strings.HasPrefix(err.Error(), "OGASched: ") {
		t.Errorf("decodeArgs error = %v, want one naming the plugin", err)
	}
}

func TestValidateArgsUtilityCoefficient(t *testing.T) {
	a := &Args{}
	SetDefaults(a)
	a.UtilityCoefficient = -2
	err := ValidateArgs(field.NewPath("args"), a)
	if err == nil || !strings.Contains(err.Error(), "args.utilityCoefficient") {
		t.Errorf("error = %v, want one naming args.utilityCoefficient", err)
	}
}

// TestValidateArgsState: the state store, its namespace and name are
// checked like the other fields; statePath alone selects the File store.
func TestValidateArgsState(t *testing.T) {
	a := &Args{StateStore: "Etcd", StateNamespace: "Not_A_Namespace", StateName: "UPPER"}
	SetDefaults(a)
	err := ValidateArgs(field.NewPath("args"), a)
	if err == nil {
		t.Fatal("invalid state args accepted")
	}
	for _, want := range []string{"args.stateStore", "args.stateNamespace", "args.stateName"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q\nlacks %q", err, want)
		}
	}
	f := &Args{StateStore: StateStoreFile}
	SetDefaults(f)
	if err := ValidateArgs(field.NewPath("args"), f); err == nil || !strings.Contains(err.Error(), "args.statePath") {
		t.Errorf("File store without a path: %v", err)
	}
	p := &Args{StatePath: "/tmp/x.json"}
	SetDefaults(p)
	if p.StateStore != StateStoreFile || p.StateNamespace != DefaultStateNamespace {
		t.Errorf("statePath alone: store %q namespace %q, want File and the default namespace", p.StateStore, p.StateNamespace)
	}
}
