package ogasched

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	core "github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// ResourceSpec names one resource type k of the model and its unit: a
// request or an allocatable of q counts as q/Unit units (so that the
// utilities see numbers of order 1 to 1000, not bytes).
type ResourceSpec struct {
	// Name is a Kubernetes resource name: cpu, memory, nvidia.com/gpu, ...
	Name string `json:"name"`
	// Unit is the quantity that counts as one unit; empty means 1.
	Unit string `json:"unit,omitempty"`
}

// Args configures the OGASched and DRF plugins (one type for both, as they
// share the mapping). The zero value of each field means its default,
// applied by SetDefaults; ValidateArgs checks the result.
//
// In a KubeSchedulerConfiguration it is the args of a pluginConfig entry,
// decoded from JSON or YAML (field names as below).
type Args struct {
	// Resources are the resource types k = 0..K-1. Default: cpu (1 core),
	// memory (1Gi), nvidia.com/gpu (1).
	Resources []ResourceSpec `json:"resources,omitempty"`
	// PortLabel, when set, names the pod label whose value is the pod's port
	// (job type). Pods without it, and every pod when PortLabel is empty,
	// get the port of their request shape: their requests of Resources.
	PortLabel string `json:"portLabel,omitempty"`
	// MaxPorts bounds the number of ports. A pod whose port is new once
	// MaxPorts ports exist is scored with the nearest known port's row
	// (bucketed; see the package documentation). Default 32.
	MaxPorts int `json:"maxPorts,omitempty"`
	// SlotSeconds is the length of a time slot t in seconds: arrivals are
	// counted per slot, and the learner steps at each slot boundary.
	// Default 60.
	SlotSeconds float64 `json:"slotSeconds,omitempty"`
	// Utility is the kind of f_r^k for every node and type (utility.Kind
	// names: linear, log, reciprocal, poly, ...). Default log.
	Utility string `json:"utility,omitempty"`
	// UtilityCoefficient is the coefficient a of f_r^k. Default 1.
	UtilityCoefficient float64 `json:"utilityCoefficient,omitempty"`
	// Beta is the overhead coefficient beta_k of every type, in [0, 1].
	// nil means 0.4 (the middle of the paper's range [0.3, 0.5]).
	Beta *float64 `json:"beta,omitempty"`
	// StateStore says where OGASched keeps its learned state (DRF has
	// none): "ConfigMap" (the default), "File" (StatePath; implied when
	// StatePath is set) or "None". The state is loaded when the replica
	// first schedules (after it became leader) and saved by the learner
	// goroutine after each slot step, never on the scheduling path.
	StateStore string `json:"stateStore,omitempty"`
	// StateNamespace is the namespace of the state ConfigMap. Default
	// kube-system.
	StateNamespace string `json:"stateNamespace,omitempty"`
	// StateName is the name of the state ConfigMap. Default
	// DefaultStateName(plugin, profile): msched-ogasched-<schedulerName>.
	// Two profiles of one scheduler may not name the same object.
	StateName string `json:"stateName,omitempty"`
	// StatePath is the file of StateStore File.
	//
	// Deprecated: a local file is not shared between replicas, so a
	// standby that takes over starts from its own (stale or missing) copy.
	// Use the ConfigMap store; StatePath is kept for single-replica
	// schedulers and simulations.
	StatePath string `json:"statePath,omitempty"`
}

// State stores (Args.StateStore).
const (
	StateStoreConfigMap = "ConfigMap"
	StateStoreFile      = "File"
	StateStoreNone      = "None"
	// DefaultStateNamespace is the default Args.StateNamespace.
	DefaultStateNamespace = "kube-system"
)

// Defaults of Args.
const (
	DefaultMaxPorts    = 32
	DefaultSlotSeconds = 60
	DefaultUtility     = "log"
	DefaultBeta        = 0.4
	// MaxSlotSeconds bounds SlotSeconds (a year).
	MaxSlotSeconds = 365 * 24 * 3600
	// LimitPorts bounds MaxPorts.
	LimitPorts = 4096
)

// DefaultResources are the resource types used when Args.Resources is empty.
func DefaultResources() []ResourceSpec {
	return []ResourceSpec{{Name: "cpu", Unit: "1"}, {Name: "memory", Unit: "1Gi"}, {Name: "nvidia.com/gpu", Unit: "1"}}
}

// DeepCopyObject implements runtime.Object so that Args can be given to a
// profile's PluginConfig directly.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	c.Resources = append([]ResourceSpec(nil), a.Resources...)
	if a.Beta != nil {
		b := *a.Beta
		c.Beta = &b
	}
	return &c
}

// GetObjectKind implements runtime.Object.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// SetDefaults fills the zero fields of a with their defaults.
func SetDefaults(a *Args) {
	if len(a.Resources) == 0 {
		a.Resources = DefaultResources()
	}
	for i := range a.Resources {
		if a.Resources[i].Unit == "" {
			a.Resources[i].Unit = "1"
		}
	}
	if a.MaxPorts == 0 {
		a.MaxPorts = DefaultMaxPorts
	}
	if a.SlotSeconds == 0 {
		a.SlotSeconds = DefaultSlotSeconds
	}
	if a.Utility == "" {
		a.Utility = DefaultUtility
	}
	if a.UtilityCoefficient == 0 {
		a.UtilityCoefficient = 1
	}
	if a.Beta == nil {
		b := float64(DefaultBeta)
		a.Beta = &b
	}
	if a.StateStore == "" {
		a.StateStore = StateStoreConfigMap
		if a.StatePath != "" {
			a.StateStore = StateStoreFile
		}
	}
	if a.StateNamespace == "" {
		a.StateNamespace = DefaultStateNamespace
	}
}

// ValidateArgs checks defaulted Args the way kube-scheduler validates its
// in-tree plugin args: every problem is collected, each naming its field
// under path, and returned as one aggregate error (nil when valid).
func ValidateArgs(path *field.Path, a *Args) error {
	var all field.ErrorList
	if a == nil {
		return field.ErrorList{field.Required(path, "args")}.ToAggregate()
	}
	rp := path.Child("resources")
	if len(a.Resources) == 0 {
		all = append(all, field.Required(rp, "at least one resource type"))
	}
	if len(a.Resources) > core.MaxK {
		all = append(all, field.TooMany(rp, len(a.Resources), core.MaxK))
	}
	seen := map[string]bool{}
	for i, r := range a.Resources {
		p := rp.Index(i)
		if r.Name == "" {
			all = append(all, field.Required(p.Child("name"), "resource name"))
		} else if seen[r.Name] {
			all = append(all, field.Duplicate(p.Child("name"), r.Name))
		}
		seen[r.Name] = true
		q, err := resource.ParseQuantity(r.Unit)
		if err != nil {
			all = append(all, field.Invalid(p.Child("unit"), r.Unit, err.Error()))
		} else if q.Sign() <= 0 {
			all = append(all, field.Invalid(p.Child("unit"), r.Unit, "must be positive"))
		}
	}
	if a.MaxPorts < 1 || a.MaxPorts > LimitPorts {
		all = append(all, field.Invalid(path.Child("maxPorts"), a.MaxPorts, fmt.Sprintf("must be in [1, %d]", LimitPorts)))
	}
	if !(a.SlotSeconds > 0 && a.SlotSeconds <= MaxSlotSeconds) { // also rejects NaN
		all = append(all, field.Invalid(path.Child("slotSeconds"), a.SlotSeconds, fmt.Sprintf("must be in (0, %d]", MaxSlotSeconds)))
	}
	kind, err := utility.ParseKind(a.Utility)
	if err != nil {
		all = append(all, field.NotSupported(path.Child("utility"), a.Utility, kindNames()))
	} else if _, err := utility.New(kind, a.UtilityCoefficient); err != nil {
		all = append(all, field.Invalid(path.Child("utilityCoefficient"), a.UtilityCoefficient, err.Error()))
	}
	if a.Beta != nil && !(*a.Beta >= 0 && *a.Beta <= 1) {
		all = append(all, field.Invalid(path.Child("beta"), *a.Beta, "must be in [0, 1]"))
	}
	switch a.StateStore {
	case StateStoreConfigMap, StateStoreNone:
	case StateStoreFile:
		if a.StatePath == "" {
			all = append(all, field.Required(path.Child("statePath"), "stateStore File needs a path"))
		}
	default:
		all = append(all, field.NotSupported(path.Child("stateStore"), a.StateStore, []string{StateStoreConfigMap, StateStoreFile, StateStoreNone}))
	}
	for _, msg := range validation.IsDNS1123Label(a.StateNamespace) {
		all = append(all, field.Invalid(path.Child("stateNamespace"), a.StateNamespace, msg))
	}
	if a.StateName != "" {
		for _, msg := range validation.IsDNS1123Subdomain(a.StateName) {
			all = append(all, field.Invalid(path.Child("stateName"), a.StateName, msg))
		}
	}
	return all.ToAggregate()
}

func kindNames() []string {
	var out []string
	for _, k := range utility.Kinds() {
		out = append(out, k.String())
	}
	return out
}

// decodeArgs turns the configuration object a plugin factory receives into
// defaulted, validated Args: nil (no pluginConfig entry), *Args, or the
// *runtime.Unknown (JSON or YAML) kube-scheduler hands to out-of-tree
// plugins.
func decodeArgs(obj runtime.Object, name string) (*Args, error) {
	a := &Args{}
	switch o := obj.(type) {
	case nil:
	case *Args:
		if o != nil {
			a = o.DeepCopyObject().(*Args)
		}
	default:
		if err := frameworkruntime.DecodeInto(obj, a); err != nil {
			return nil, fmt.Errorf("%s: decoding args: %w", name, err)
		}
	}
	SetDefaults(a)
	if err := ValidateArgs(field.NewPath("args"), a); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, nil
}
