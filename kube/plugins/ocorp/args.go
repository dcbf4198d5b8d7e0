package ocorp

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// Args configures the OCORP plugin. Because kube-scheduler requires the
// same QueueSort plugin with the same args in every profile, the args name
// the profiles whose pods OCORP orders and preempts (Profiles); pods of
// other profiles are ordered exactly as PrioritySort orders them.
type Args struct {
	// Profiles are the scheduler names whose pods OCORP manages. Default
	// [msched-ocorp].
	Profiles []string `json:"profiles,omitempty"`
	// SlotSeconds is the length of a slot: the duals are updated once per
	// slot. Default 10 (the paper's slot), in (0, 3600].
	SlotSeconds float64 `json:"slotSeconds,omitempty"`
	// WorkAnnotation names the pod annotation with the job's processing
	// time at full speed, in seconds (p_j = ceil(work / slot)). Default
	// msched.io/work.
	WorkAnnotation string `json:"workAnnotation,omitempty"`
	// DefaultWorkSeconds is the processing time of pods without the
	// annotation. Default 600, in [1, 1e8].
	DefaultWorkSeconds float64 `json:"defaultWorkSeconds,omitempty"`
	// K is the order k of the l_k norm of flowtime. Default 2, in [1, 8].
	K float64 `json:"k,omitempty"`
	// Preemption enables the PostFilter preemption (default true).
	Preemption *bool `json:"preemption,omitempty"`
	// MaxJobs bounds the jobs of one slot's decision (the rest wait for
	// the next slot in arrival order). Default 10000, at most 1e6.
	MaxJobs int `json:"maxJobs,omitempty"`
	// StateStore says where each managed profile keeps its learned state
	// (the policy's duals and the pods' job IDs): "ConfigMap" (the
	// default) or "None" (in memory only). It is loaded at the profile's
	// first scheduling cycle (after the replica became leader) and saved
	// by the slot goroutine, never on the scheduling path.
	StateStore string `json:"stateStore,omitempty"`
	// StateNamespace is the namespace of the state ConfigMaps. Default
	// kube-system.
	StateNamespace string `json:"stateNamespace,omitempty"`
	// StateName is the name of the state ConfigMap. Default
	// msched-ocorp-<schedulerName> per managed profile. The args are the
	// same in every profile, so a StateName with two managed profiles is
	// refused (two plugins cannot share one state object).
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
	DefaultProfile            = "msched-ocorp"
	DefaultSlotSeconds        = 10
	MaxSlotSeconds            = 3600
	DefaultWorkAnnotation     = "msched.io/work"
	DefaultDefaultWorkSeconds = 600
	MaxWorkSeconds            = 1e8
	DefaultK                  = 2
	DefaultMaxJobs            = 10000
	LimitJobs                 = 1000000
)

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	c.Profiles = append([]string(nil), a.Profiles...)
	if a.Preemption != nil {
		b := *a.Preemption
		c.Preemption = &b
	}
	return &c
}

// GetObjectKind implements runtime.Object.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// SetDefaults fills the zero fields of a.
func SetDefaults(a *Args) {
	if len(a.Profiles) == 0 {
		a.Profiles = []string{DefaultProfile}
	}
	if a.SlotSeconds == 0 {
		a.SlotSeconds = DefaultSlotSeconds
	}
	if a.WorkAnnotation == "" {
		a.WorkAnnotation = DefaultWorkAnnotation
	}
	if a.DefaultWorkSeconds == 0 {
		a.DefaultWorkSeconds = DefaultDefaultWorkSeconds
	}
	if a.K == 0 {
		a.K = DefaultK
	}
	if a.Preemption == nil {
		b := true
		a.Preemption = &b
	}
	if a.MaxJobs == 0 {
		a.MaxJobs = DefaultMaxJobs
	}
	if a.StateStore == "" {
		a.StateStore = StateStoreConfigMap
	}
	if a.StateNamespace == "" {
		a.StateNamespace = DefaultStateNamespace
	}
}

// ValidateOCORPArgs collects every problem of defaulted args, each naming
// its field under path; nil when valid.
func ValidateOCORPArgs(path *field.Path, a *Args) error {
	if a == nil {
		return field.ErrorList{field.Required(path, "args")}.ToAggregate()
	}
	var all field.ErrorList
	seen := map[string]bool{}
	for i, p := range a.Profiles {
		if p == "" {
			all = append(all, field.Required(path.Child("profiles").Index(i), "scheduler name"))
		} else if seen[p] {
			all = append(all, field.Duplicate(path.Child("profiles").Index(i), p))
		}
		seen[p] = true
	}
	if !(a.SlotSeconds > 0 && a.SlotSeconds <= MaxSlotSeconds) {
		all = append(all, field.Invalid(path.Child("slotSeconds"), a.SlotSeconds, fmt.Sprintf("must be in (0, %d]", MaxSlotSeconds)))
	}
	for _, msg := range validation.IsQualifiedName(a.WorkAnnotation) {
		all = append(all, field.Invalid(path.Child("workAnnotation"), a.WorkAnnotation, msg))
	}
	if !(a.DefaultWorkSeconds >= 1 && a.DefaultWorkSeconds <= MaxWorkSeconds) {
		all = append(all, field.Invalid(path.Child("defaultWorkSeconds"), a.DefaultWorkSeconds, fmt.Sprintf("must be in [1, %g]", float64(MaxWorkSeconds))))
	}
	if !(a.K >= 1 && a.K <= 8) {
		all = append(all, field.Invalid(path.Child("k"), a.K, "must be in [1, 8]"))
	}
	if a.MaxJobs < 1 || a.MaxJobs > LimitJobs {
		all = append(all, field.Invalid(path.Child("maxJobs"), a.MaxJobs, fmt.Sprintf("must be in [1, %d]", LimitJobs)))
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
	if err := ValidateOCORPArgs(field.NewPath("args"), a); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return a, nil
}
