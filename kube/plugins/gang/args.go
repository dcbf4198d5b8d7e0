package gang

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Args configures the Gang plugin. Zero fields take their defaults
// (SetDefaults); ValidateArgs checks the result.
type Args struct {
	// GroupLabel is the pod label whose value names the pod's group within
	// its namespace. Default scheduling.x-k8s.io/pod-group, the label of
	// scheduler-plugins' coscheduling.
	GroupLabel string `json:"groupLabel,omitempty"`
	// MinMemberKey is the pod annotation (or, without it, label) holding the
	// group's min-member count, a decimal integer in [1, MaxGroupSize].
	// Default scheduling.x-k8s.io/min-member.
	MinMemberKey string `json:"minMemberKey,omitempty"`
	// PermitWaitingTimeSeconds is how long a permitted member waits for the
	// rest of its group before the whole group is rejected and releases
	// what it holds. Default 60, at most 3600.
	PermitWaitingTimeSeconds int64 `json:"permitWaitingTimeSeconds,omitempty"`
	// MaxGroupSize bounds min-member (and the pods the placer considers per
	// cycle). Default 1024, at most 65536.
	MaxGroupSize int `json:"maxGroupSize,omitempty"`
	// ReserveBlockedMillis, when > 0, reserves capacity for a group that
	// does not fit (the first one blocked while no reservation is live):
	// other groups' plans leave its nodes alone for this many
	// milliseconds, or until it is placed. 0 (the default) reserves
	// nothing; at most MaxReserveBlockedMillis.
	ReserveBlockedMillis int64 `json:"reserveBlockedMillis,omitempty"`
	// Backfill lets other groups use a reservation's nodes for what is
	// free there beside the reserved members (instead of not at all).
	Backfill bool `json:"backfill,omitempty"`
	// QueueOrder is the queue order when the profile uses Gang at
	// queueSort (see Plugin.Less): QueueByArrival (the default) or
	// QueueByMinMember.
	QueueOrder string `json:"queueOrder,omitempty"`
}

// The values of Args.QueueOrder.
const (
	// QueueByArrival orders pods by the time they first entered the
	// scheduling queue: groups oldest first, whole.
	QueueByArrival = "arrival"
	// QueueByMinMember orders pods by their group's min-member, smallest
	// first, then by the time they last entered the queue.
	QueueByMinMember = "minMember"
)

// Defaults and limits of Args.
const (
	DefaultGroupLabel               = "scheduling.x-k8s.io/pod-group"
	DefaultMinMemberKey             = "scheduling.x-k8s.io/min-member"
	DefaultPermitWaitingTimeSeconds = 60
	MaxPermitWaitingTimeSeconds     = 3600
	DefaultMaxGroupSize             = 1024
	LimitGroupSize                  = 65536
	MaxReserveBlockedMillis         = 3600 * 1000
)

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object { c := *a; return &c }

// GetObjectKind implements runtime.Object.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// SetDefaults fills the zero fields of a.
func SetDefaults(a *Args) {
	if a.GroupLabel == "" {
		a.GroupLabel = DefaultGroupLabel
	}
	if a.MinMemberKey == "" {
		a.MinMemberKey = DefaultMinMemberKey
	}
	if a.PermitWaitingTimeSeconds == 0 {
		a.PermitWaitingTimeSeconds = DefaultPermitWaitingTimeSeconds
	}
	if a.MaxGroupSize == 0 {
		a.MaxGroupSize = DefaultMaxGroupSize
	}
	if a.QueueOrder == "" {
		a.QueueOrder = QueueByArrival
	}
}

// ValidateGangArgs collects every problem of defaulted args, each naming its
// field under path; nil when valid.
func ValidateGangArgs(path *field.Path, a *Args) error {
	if a == nil {
		return field.ErrorList{field.Required(path, "args")}.ToAggregate()
	}
	var all field.ErrorList
	for _, k := range []struct {
		name, v string
	}{{"groupLabel", a.GroupLabel}, {"minMemberKey", a.MinMemberKey}} {
		for _, msg := range validation.IsQualifiedName(k.v) {
			all = append(all, field.Invalid(path.Child(k.name), k.v, msg))
		}
	}
	if a.PermitWaitingTimeSeconds < 1 || a.PermitWaitingTimeSeconds > MaxPermitWaitingTimeSeconds {
		all = append(all, field.Invalid(path.Child("permitWaitingTimeSeconds"), a.PermitWaitingTimeSeconds,
			fmt.Sprintf("must be in [1, %d]", MaxPermitWaitingTimeSeconds)))
	}
	if a.MaxGroupSize < 1 || a.MaxGroupSize > LimitGroupSize {
		all = append(all, field.Invalid(path.Child("maxGroupSize"), a.MaxGroupSize, fmt.Sprintf("must be in [1, %d]", LimitGroupSize)))
	}
	if a.ReserveBlockedMillis < 0 || a.ReserveBlockedMillis > MaxReserveBlockedMillis {
		all = append(all, field.Invalid(path.Child("reserveBlockedMillis"), a.ReserveBlockedMillis, fmt.Sprintf("must be in [0, %d]", MaxReserveBlockedMillis)))
	}
	if a.QueueOrder != QueueByArrival && a.QueueOrder != QueueByMinMember {
		all = append(all, field.NotSupported(path.Child("queueOrder"), a.QueueOrder, []string{QueueByArrival, QueueByMinMember}))
	}
	return all.ToAggregate()
}

// decodeArgs turns a factory's configuration object (nil, *Args or the
// *runtime.Unknown kube-scheduler passes) into defaulted, validated Args.
func decodeArgs(obj runtime.Object) (*Args, error) {
	a := &Args{}
	switch o := obj.(type) {
	case nil:
	case *Args:
		if o != nil {
			*a = *o
		}
	default:
		if err := frameworkruntime.DecodeInto(obj, a); err != nil {
			return nil, fmt.Errorf("%s: decoding args: %w", Name, err)
		}
	}
	SetDefaults(a)
	if err := ValidateGangArgs(field.NewPath("args"), a); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	return a, nil
}
