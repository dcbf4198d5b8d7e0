package trace

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Default limits; see Limits.
const (
	// DefaultMaxRecordBytes bounds one CSV record (a line, or several
	// lines joined by a quoted newline): 1 MiB. OpenB records are under
	// 100 bytes.
	DefaultMaxRecordBytes = 1 << 20
	// DefaultMaxRows bounds the rows of one file: 2^24 = 16,777,216
	// (about 3 GiB of pods).
	DefaultMaxRows = 1 << 24
	// DefaultMaxTime bounds every timestamp (creation, deletion,
	// scheduled), in seconds from the trace start: 2^40 s, about 34,800
	// years. Differences and sums of two timestamps then never overflow
	// int64. OpenB times are below 1.3e7.
	DefaultMaxTime = 1 << 40
	// DefaultMaxResource bounds cpu_milli and memory_mib: 2^40 (a
	// billion cores; a TiB of MiB), so that unit conversions and sums
	// never overflow.
	DefaultMaxResource = 1 << 40
	// DefaultMaxSlots bounds every slot count or horizon a mapping
	// derives or is given (OGASched T, ESDP T, OnSocMax Slots, OCORP's
	// last arrival + processing): 2^22 = 4,194,304 slots, 48 days of
	// one-second slots or 80 years of ten-minute slots.
	DefaultMaxSlots = 1 << 22
	// DefaultMaxCells bounds the cells of a table a mapping allocates or
	// visits from option values (OGASched's T × ports arrivals, the job
	// types × nodes of the fit test, the total resource units of
	// OnSocMax's jobs): 2^26 = 67,108,864, 512 MiB of float64.
	DefaultMaxCells = 1 << 26
	// MaxGPUs bounds num_gpu and gpu (GPUs per pod or node).
	MaxGPUs = 1 << 20
	// MaxGPUSpec bounds the GPU models listed in one pod's gpu_spec
	// (OpenB lists at most 7). Without it a 1 MiB field "a|a|a|..." became
	// half a million strings, 8 MiB of headers per row: eight times the
	// file in memory.
	MaxGPUSpec = 256
	// CeilingMaxTime is the largest MaxTime a Limits may raise the
	// timestamp bound to: 2^61 s. A larger (or MaxInt64) MaxTime is an
	// error from Limits.Validate, so that the mappings' sums and differences of
	// two timestamps (a span plus one, an arrival plus a duration) never
	// overflow int64: with MaxTime = MaxInt64, pods created at 0 and
	// MaxInt64 made the span wrap to MinInt64 and OGASched index slot
	// -2000.
	CeilingMaxTime = 1 << 61
	// CeilingMaxRecordBytes, CeilingMaxRows, CeilingMaxResource,
	// CeilingMaxSlots and CeilingMaxCells are the largest values the other
	// Limits fields may be raised to (a larger value is an error from
	// Limits.Validate, which every reader and mapping calls first): a
	// user who raises a limit asks for more room, and these keep the
	// room on one machine. MaxSlots and MaxCells at MaxInt with T = 1e9
	// tried to allocate terabytes; at their ceilings a mapping allocates
	// at most 2^31 cells (16 GiB of float64) and a record 1 GiB.
	CeilingMaxRecordBytes = 1 << 30
	CeilingMaxRows        = 1 << 30
	CeilingMaxResource    = 1 << 52
	CeilingMaxSlots       = 1 << 31
	CeilingMaxCells       = 1 << 31
)

// Limits bounds what the readers and mappings of this package accept, so
// that no file, Trace or option can exhaust memory, overflow an int64 or
// make a mapping (or the simulator it feeds) run for hours. A zero (or negative) field
// takes its default (DefaultMaxRecordBytes, ...), so Limits{} is the
// default policy; a field above its ceiling (CeilingMaxTime, ...) is an
// error wrapping ErrTooLarge from Validate, which every reader, Check
// method and mapping calls first; the functions without a Limits receiver (ReadPods,
// NewPodReader, Load, ...) and the mappings (unless their options carry
// Limits) use it. A value above its limit gives an error wrapping
// ErrTooLarge (readers: inside a *ParseError naming file, line and
// column; mappings: naming the pod or option, the value and the limit).
type Limits struct {
	MaxRecordBytes int   // bytes of one CSV record [DefaultMaxRecordBytes]
	MaxRows        int   // rows of one file [DefaultMaxRows]
	MaxTime        int64 // timestamps, seconds [DefaultMaxTime]
	MaxResource    int64 // cpu_milli and memory_mib [DefaultMaxResource]
	MaxSlots       int   // slot counts and horizons of the mappings [DefaultMaxSlots]
	MaxCells       int   // cells of a table a mapping allocates [DefaultMaxCells]
}

// DefaultLimits returns the default limits with every field set.
func DefaultLimits() Limits { return Limits{}.withDefaults() }

// Validate reports every field above its ceiling (CeilingMaxRecordBytes,
// CeilingMaxRows, CeilingMaxTime, CeilingMaxResource, CeilingMaxSlots,
// CeilingMaxCells), joined with errors.Join, each wrapping ErrTooLarge and
// naming the field, its value and the ceiling. Zero and negative fields
// take their defaults and are valid. Every reader, mapping and Check
// method with a Limits calls it first.
func (lim Limits) Validate() error {
	var errs []error
	above := func(field string, v, ceiling int64) {
		if v > ceiling {
			errs = append(errs, fmt.Errorf("%w: Limits.%s = %d above its ceiling %d", ErrTooLarge, field, v, ceiling))
		}
	}
	above("MaxRecordBytes", int64(lim.MaxRecordBytes), CeilingMaxRecordBytes)
	above("MaxRows", int64(lim.MaxRows), CeilingMaxRows)
	above("MaxTime", lim.MaxTime, CeilingMaxTime)
	above("MaxResource", lim.MaxResource, CeilingMaxResource)
	above("MaxSlots", int64(lim.MaxSlots), CeilingMaxSlots)
	above("MaxCells", int64(lim.MaxCells), CeilingMaxCells)
	return errors.Join(errs...)
}

// checkOptions reports every option below its smallest valid value
// (0, or -1 where -1 means "all"), joined, each wrapping ErrValue and
// naming the option: a negative count or length is a mistake, not a
// request for the default (which is 0).
func checkOptions(opts ...option) error {
	var errs []error
	for _, o := range opts {
		if o.v < o.min {
			want := "want >= 0 (0 for the default)"
			if o.min == -1 {
				want = "want >= -1 (0 for the default, -1 for all)"
			}
			errs = append(errs, fmt.Errorf("%w: %s = %d, %s", ErrValue, o.name, o.v, want))
		}
	}
	return errors.Join(errs...)
}

// option is a named integer option of a mapping and its smallest valid
// value.
type option struct {
	name   string
	v, min int64
}

func (lim Limits) withDefaults() Limits {
	if lim.MaxRecordBytes <= 0 {
		lim.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if lim.MaxRows <= 0 {
		lim.MaxRows = DefaultMaxRows
	}
	if lim.MaxTime <= 0 {
		lim.MaxTime = DefaultMaxTime
	}
	lim.MaxTime = min(lim.MaxTime, CeilingMaxTime)
	if lim.MaxResource <= 0 {
		lim.MaxResource = DefaultMaxResource
	}
	if lim.MaxSlots <= 0 {
		lim.MaxSlots = DefaultMaxSlots
	}
	if lim.MaxCells <= 0 {
		lim.MaxCells = DefaultMaxCells
	}
	return lim
}

// CheckPod returns an error unless pod i is within lim and consistent:
// a name, resources in [0, MaxResource], num_gpu in [0, MaxGPUs], at most
// MaxGPUSpec models in gpu_spec,
// gpu_milli in [0, 1000] and 0 without GPUs, and, for a pod with times,
// 0 <= creation <= deletion <= MaxTime and scheduled -1 or in
// [creation, deletion]. The readers enforce the same rules row by row;
// the mappings call CheckPod on every pod of a Trace, which a caller may
// have built by hand. The error wraps ErrValue or ErrTooLarge and names
// the pod, the field, the value and the limit.
func (lim Limits) CheckPod(i int, p Pod) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	lim = lim.withDefaults()
	bad := func(sentinel error, field string, v int64, want string) error {
		return fmt.Errorf("%w: pod %d (%q): %s = %d, want %s", sentinel, i, p.Name, field, v, want)
	}
	if p.Name == "" {
		return fmt.Errorf("%w: pod %d: empty name", ErrValue, i)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"cpu_milli", p.CPUMilli}, {"memory_mib", p.MemoryMiB}} {
		if f.v < 0 {
			return bad(ErrValue, f.name, f.v, ">= 0")
		}
		if f.v > lim.MaxResource {
			return bad(ErrTooLarge, f.name, f.v, fmt.Sprintf("<= MaxResource = %d", lim.MaxResource))
		}
	}
	if p.NumGPU < 0 || p.NumGPU > MaxGPUs {
		return bad(ErrValue, "num_gpu", int64(p.NumGPU), fmt.Sprintf("in [0, %d]", MaxGPUs))
	}
	if p.GPUMilli < 0 || p.GPUMilli > 1000 || (p.NumGPU == 0 && p.GPUMilli != 0) {
		return bad(ErrValue, "gpu_milli", int64(p.GPUMilli), "in [0, 1000], and 0 when num_gpu = 0")
	}
	if len(p.GPUSpec) > MaxGPUSpec {
		return bad(ErrTooLarge, "gpu_spec models", int64(len(p.GPUSpec)), fmt.Sprintf("<= MaxGPUSpec = %d", MaxGPUSpec))
	}
	if !p.HasTimes {
		return nil
	}
	if p.Creation < 0 {
		return bad(ErrValue, "creation_time", p.Creation, ">= 0")
	}
	if p.Creation > lim.MaxTime {
		return bad(ErrTooLarge, "creation_time", p.Creation, fmt.Sprintf("<= MaxTime = %d", lim.MaxTime))
	}
	if p.Deletion < p.Creation {
		return bad(ErrValue, "deletion_time", p.Deletion, fmt.Sprintf(">= creation_time = %d", p.Creation))
	}
	if p.Deletion > lim.MaxTime {
		return bad(ErrTooLarge, "deletion_time", p.Deletion, fmt.Sprintf("<= MaxTime = %d", lim.MaxTime))
	}
	if p.Scheduled != -1 && (p.Scheduled < p.Creation || p.Scheduled > p.Deletion) {
		return bad(ErrValue, "scheduled_time", p.Scheduled, fmt.Sprintf("-1 or in [creation, deletion] = [%d, %d]", p.Creation, p.Deletion))
	}
	return nil
}

// CheckNode returns an error unless node i is within lim: a name,
// resources in [0, MaxResource], gpu in [0, MaxGPUs] and a model when it
// has GPUs.
func (lim Limits) CheckNode(i int, n Node) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	lim = lim.withDefaults()
	if n.Name == "" {
		return fmt.Errorf("%w: node %d: empty name", ErrValue, i)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"cpu_milli", n.CPUMilli}, {"memory_mib", n.MemoryMiB}} {
		if f.v < 0 || f.v > lim.MaxResource {
			return fmt.Errorf("%w: node %d (%q): %s = %d, want [0, MaxResource = %d]", ErrValue, i, n.Name, f.name, f.v, lim.MaxResource)
		}
	}
	if n.GPU < 0 || n.GPU > MaxGPUs {
		return fmt.Errorf("%w: node %d (%q): gpu = %d, want [0, %d]", ErrValue, i, n.Name, n.GPU, MaxGPUs)
	}
	if n.GPU > 0 && n.Model == "" {
		return fmt.Errorf("%w: node %d (%q): %d GPUs but no model", ErrValue, i, n.Name, n.GPU)
	}
	return nil
}

// CheckTrace checks every node and pod of tr (CheckNode, CheckPod) and
// the row counts against lim. Every mapping calls it first.
func (lim Limits) CheckTrace(tr *Trace) error {
	if err := lim.Validate(); err != nil {
		return err
	}
	lim = lim.withDefaults()
	if tr == nil {
		return fmt.Errorf("%w: nil *Trace", ErrEmpty)
	}
	if len(tr.Nodes) > lim.MaxRows {
		return fmt.Errorf("%w: %d nodes, limit MaxRows = %d", ErrTooLarge, len(tr.Nodes), lim.MaxRows)
	}
	if len(tr.Pods) > lim.MaxRows {
		return fmt.Errorf("%w: %d pods, limit MaxRows = %d", ErrTooLarge, len(tr.Pods), lim.MaxRows)
	}
	for i, n := range tr.Nodes {
		if err := lim.CheckNode(i, n); err != nil {
			return err
		}
	}
	for i, p := range tr.Pods {
		if err := lim.CheckPod(i, p); err != nil {
			return err
		}
	}
	return nil
}

// checkSlots returns an error unless 1 <= v <= MaxSlots; what names the
// option or derived quantity.
func (lim Limits) checkSlots(what string, v int64) error {
	lim = lim.withDefaults()
	if v < 1 {
		return fmt.Errorf("%w: %s = %d, want >= 1", ErrValue, what, v)
	}
	if v > int64(lim.MaxSlots) {
		return fmt.Errorf("%w: %s = %d, limit MaxSlots = %d", ErrTooLarge, what, v, lim.MaxSlots)
	}
	return nil
}

// checkCells returns an error unless the product of dims (computed
// without overflow) is at most MaxCells; what names the table.
func (lim Limits) checkCells(what string, dims ...int) error {
	lim = lim.withDefaults()
	if !checked.Within(lim.MaxCells, dims...) {
		return fmt.Errorf("%w: %s has %v cells, limit MaxCells = %d", ErrTooLarge, what, dims, lim.MaxCells)
	}
	return nil
}

// checkScale returns an error unless v is 0 (the default) or finite and
// positive; what names the option.
func checkScale(what string, v float64) error {
	if v == 0 || (v > 0 && !math.IsInf(v, 1)) {
		return nil
	}
	return fmt.Errorf("%w: %s = %v, want finite > 0 (or 0 for the default)", ErrValue, what, v)
}

// errRecordTooLong is returned by recordLimiter; table turns it into a
// *ParseError naming the line.
var errRecordTooLong = errors.New("record too long")

// recordLimiter passes bytes through and fails once a CSV record (the
// bytes between two newlines outside double quotes) exceeds max bytes, so
// that encoding/csv never buffers a 1 GB field. A doubled quote ("")
// toggles the quote state twice, so the count stays right for escaped
// quotes.
type recordLimiter struct {
	r       io.Reader
	max     int
	n       int  // bytes of the current record so far
	quoted  bool // inside a quoted field
	line    int  // 1-based physical line of the current byte
	start   int  // 1-based line on which the current record starts
	tooLong int  // the line on which the too long record starts, 0 if not
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	if l.tooLong > 0 {
		return 0, errRecordTooLong
	}
	// Never hand more than the remaining budget (+1 to detect the excess)
	// to the reader, so a record is cut at the limit.
	if room := l.max - l.n + 1; len(p) > room && room > 0 {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		switch c {
		case '"':
			l.quoted = !l.quoted
		case '\n':
			l.line++
			if !l.quoted {
				l.n = 0
				l.start = l.line
				continue
			}
		}
		l.n++
		if l.n > l.max {
			l.tooLong = l.start
			return i, errRecordTooLong
		}
	}
	return n, err
}
