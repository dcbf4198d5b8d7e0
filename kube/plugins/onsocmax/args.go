package onsocmax

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// ResourceSpec is one resource type priced by the plugin and its unit.
type ResourceSpec struct {
	Name string `json:"name"`           // cpu, memory, nvidia.com/gpu, ...
	Unit string `json:"unit,omitempty"` // quantity counted as one unit; empty means 1
}

// Args configures the OnSocMax plugin; zero fields take their defaults
// (SetDefaults), ValidateOnSocMaxArgs checks the result.
type Args struct {
	// Resources are the priced resource types. Default cpu (1), memory
	// (1Gi), nvidia.com/gpu (1).
	Resources []ResourceSpec `json:"resources,omitempty"`
	// Iota and V bound the value a job may declare per unit of cluster
	// share (eq. (8) of paper 001): the price of a resource starts at Iota
	// and reaches V when the resource is fully committed. 0 < Iota <= V.
	// Defaults 1 and 100.
	Iota float64 `json:"iota,omitempty"`
	V    float64 `json:"v,omitempty"`
	// ValueAnnotation names the pod annotation with the job's declared
	// value (a decimal number in (0, MaxValue]). Default msched.io/value.
	ValueAnnotation string `json:"valueAnnotation,omitempty"`
	// DeadlineAnnotation names the pod annotation with the time (RFC 3339)
	// after which the job is worth nothing: a job not admitted by then is
	// refused. Optional on pods. Default msched.io/deadline.
	DeadlineAnnotation string `json:"deadlineAnnotation,omitempty"`
	// LeaseNamespace is the namespace of the Lease
	// msched-onsocmax-<schedulerName> that elects the one replica writing
	// conditions and events. Default kube-system.
	LeaseNamespace string `json:"leaseNamespace,omitempty"`
}

// Defaults and limits of Args.
const (
	DefaultIota               = 1
	DefaultV                  = 100
	DefaultValueAnnotation    = "msched.io/value"
	DefaultDeadlineAnnotation = "msched.io/deadline"
	DefaultLeaseNamespace     = "kube-system"
	// MaxValue bounds a declared value and V.
	MaxValue = 1e12
	// MaxResources bounds len(Resources).
	MaxResources = 16
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
	if a.Iota == 0 {
		a.Iota = DefaultIota
	}
	if a.V == 0 {
		a.V = DefaultV
	}
	if a.ValueAnnotation == "" {
		a.ValueAnnotation = DefaultValueAnnotation
	}
	if a.DeadlineAnnotation == "" {
		a.DeadlineAnnotation = DefaultDeadlineAnnotation
	}
	if a.LeaseNamespace == "" {
		a.LeaseNamespace = DefaultLeaseNamespace
	}
}

// ValidateOnSocMaxArgs collects every problem of defaulted args, each
// naming its field under path; nil when valid.
func ValidateOnSocMaxArgs(path *field.Path, a *Args) error {
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
	if !(a.Iota > 0 && a.Iota <= MaxValue) {
		all = append(all, field.Invalid(path.Child("iota"), a.Iota, fmt.Sprintf("must be in (0, %g]", float64(MaxValue))))
	}
	if !(a.V > 0 && a.V <= MaxValue) || math.IsNaN(a.V) {
		all = append(all, field.Invalid(path.Child("v"), a.V, fmt.Sprintf("must be in (0, %g]", float64(MaxValue))))
	} else if a.Iota > 0 && a.V < a.Iota {
		all = append(all, field.Invalid(path.Child("v"), a.V, fmt.Sprintf("must be at least iota (%g)", a.Iota)))
	}
	for _, k := range []struct{ name, v string }{{"valueAnnotation", a.ValueAnnotation}, {"deadlineAnnotation", a.DeadlineAnnotation}} {
		for _, msg := range validation.IsQualifiedName(k.v) {
			all = append(all, field.Invalid(path.Child(k.name), k.v, msg))
		}
	}
	for _, msg := range validation.IsDNS1123Label(a.LeaseNamespace) {
		all = append(all, field.Invalid(path.Child("leaseNamespace"), a.LeaseNamespace, msg))
	}
	if a.ValueAnnotation == a.DeadlineAnnotation && a.ValueAnnotation != "" {
		all = append(all, field.Duplicate(path.Child("deadlineAnnotation"), a.DeadlineAnnotation))
	}
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
	if err := ValidateOnSocMaxArgs(field.NewPath("args"), a); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return a, nil
}
