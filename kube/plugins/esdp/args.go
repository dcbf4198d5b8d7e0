package esdp

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// ResourceSpec is one resource type k of the model and its unit.
type ResourceSpec struct {
	Name string `json:"name"`           // cpu, memory, nvidia.com/gpu, ...
	Unit string `json:"unit,omitempty"` // quantity counted as one unit; empty means 1
}

// Args configures the ESDP plugin; zero fields take their defaults
// (SetDefaults), ValidateESDPArgs checks the result.
type Args struct {
	// Resources are the resource types k. Default cpu (1), memory (1Gi),
	// nvidia.com/gpu (1). Demands are requests over the unit rounded up,
	// capacities the nodes' allocatable over the unit rounded down.
	Resources []ResourceSpec `json:"resources,omitempty"`
	// MaxPorts bounds the number of pod shapes (ports); pods of a shape
	// first seen after that get no ESDP score. Default 32, at most 256.
	MaxPorts int `json:"maxPorts,omitempty"`
	// SlotSeconds is the slot length: arrivals are counted and ESDP decides
	// once per slot. Default 60, in (0, 86400].
	SlotSeconds float64 `json:"slotSeconds,omitempty"`
	// RewardAnnotation names the pod annotation a finished job may carry
	// with its reward in [0, 1]. Without it a Succeeded pod counts 1 and
	// a Failed pod 0. Default msched.io/reward.
	RewardAnnotation string `json:"rewardAnnotation,omitempty"`
	// OracleMiB bounds the memory of ESDP's dynamic program per slot, in
	// MiB; past it the slot uses the scalable oracle. Default 64, in
	// [1, 4096].
	OracleMiB int64 `json:"oracleMiB,omitempty"`
	// StateStore says where the learned state is kept: "ConfigMap" (the
	// default) or "None" (in memory only). The state is loaded at the
	// replica's first scoring cycle (after it became leader) and saved by
	// the background goroutine after each slot, never on the scheduling
	// path.
	StateStore string `json:"stateStore,omitempty"`
	// StateNamespace is the namespace of the state ConfigMap. Default
	// kube-system.
	StateNamespace string `json:"stateNamespace,omitempty"`
	// StateName is the name of the state ConfigMap. Default
	// msched-esdp-<schedulerName>. Two profiles of one scheduler may not
	// name the same object.
	StateName string `json:"stateName,omitempty"`
}

// State stores (Args.StateStore).
const (
	StateStoreConfigMap   = statestore.KindConfigMap
	StateStoreNone        = statestore.KindNone
	DefaultStateNamespace = statestore.DefaultNamespace
)

// Defaults and limits of Args.
const (
	DefaultMaxPorts         = 32
	LimitPorts              = 256
	DefaultSlotSeconds      = 60
	MaxSlotSeconds          = 86400
	DefaultRewardAnnotation = "msched.io/reward"
	DefaultOracleMiB        = 64
	MaxOracleMiB            = 4096
	MaxResources            = 16
)

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	c.Resources = append([]ResourceSpec(nil), a.Resources...)
	return &c
}

// GetObjectKind implements runtime.Object.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// SetDefaults fills the zero fields of a.
func SetDefaults(a *Args) {
	if len(a.Resources) == 0 {
		a.Resources = []ResourceSpec{{Name: "cpu", Unit: "1"}, {Name: "memory", Unit: "1Gi"}, {Name: "nvidia.com/gpu", Unit: "1"}}
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
	if a.RewardAnnotation == "" {
		a.RewardAnnotation = DefaultRewardAnnotation
	}
	if a.OracleMiB == 0 {
		a.OracleMiB = DefaultOracleMiB
	}
	if a.StateStore == "" {
		a.StateStore = StateStoreConfigMap
	}
	if a.StateNamespace == "" {
		a.StateNamespace = DefaultStateNamespace
	}
}

// ValidateESDPArgs collects every problem of defaulted args, each naming
// its field under path; nil when valid.
func ValidateESDPArgs(path *field.Path, a *Args) error {
	if a == nil {
		return field.ErrorList{field.Required(path, "args")}.ToAggregate()
	}
	var all field.ErrorList
	rp := path.Child("resources")
	if len(a.Resources) == 0 {
		all = append(all, field.Required(rp, "at least one resource type"))
	}
	if len(a.Resources) > MaxResources {
		all = append(all, field.TooMany(rp, len(a.Resources), MaxResources))
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
		if q, err := resource.ParseQuantity(r.Unit); err != nil {
			all = append(all, field.Invalid(p.Child("unit"), r.Unit, err.Error()))
		} else if q.Sign() <= 0 {
			all = append(all, field.Invalid(p.Child("unit"), r.Unit, "must be positive"))
		}
	}
	if a.MaxPorts < 1 || a.MaxPorts > LimitPorts {
		all = append(all, field.Invalid(path.Child("maxPorts"), a.MaxPorts, fmt.Sprintf("must be in [1, %d]", LimitPorts)))
	}
	if !(a.SlotSeconds > 0 && a.SlotSeconds <= MaxSlotSeconds) {
		all = append(all, field.Invalid(path.Child("slotSeconds"), a.SlotSeconds, fmt.Sprintf("must be in (0, %d]", MaxSlotSeconds)))
	}
	for _, msg := range validation.IsQualifiedName(a.RewardAnnotation) {
		all = append(all, field.Invalid(path.Child("rewardAnnotation"), a.RewardAnnotation, msg))
	}
	if a.OracleMiB < 1 || a.OracleMiB > MaxOracleMiB {
		all = append(all, field.Invalid(path.Child("oracleMiB"), a.OracleMiB, fmt.Sprintf("must be in [1, %d]", MaxOracleMiB)))
	}
	all = append(all, statestore.Validate(path, a.StateStore, a.StateNamespace, a.StateName, StateStoreConfigMap, StateStoreNone)...)
	return all.ToAggregate()
}

func decodeArgs(obj runtime.Object) (*Args, error) {
	a := &Args{}
	switch o := obj.(type) {
	case nil:
	case *Args:
		if o != nil {
			a = o.DeepCopyObject().(*Args)
		}
	default:
		if err := frameworkruntime.DecodeInto(obj, a); err != nil {
			return nil, fmt.Errorf("%s: decoding args: %w", Name, err)
		}
	}
	SetDefaults(a)
	if err := ValidateESDPArgs(field.NewPath("args"), a); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return a, nil
}
