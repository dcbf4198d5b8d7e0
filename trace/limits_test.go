package trace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

func parseErr(t *testing.T, err error) *ParseError {
	t.Helper()
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "want a *ParseError, got %v", err)
	return pe
}

func TestCSVHeaderHostile(t *testing.T) {
	// Duplicate columns, known or not, are an error (last-wins hid data).
	for _, head := range []string{
		"name,cpu_milli,memory_mib,num_gpu,gpu_milli,cpu_milli\n",
		"name,cpu_milli,memory_mib,num_gpu,gpu_milli,extra,extra\n",
	} {
		_, err := ReadPods(strings.NewReader(head+"a,1,1,0,0,1,1\n"), "p.csv")
		require.ErrorIs(t, err, ErrHeader, head)
		assert.Contains(t, err.Error(), "twice")
		assert.Equal(t, 1, parseErr(t, err).Line)
	}
	// A UTF-8 byte-order mark is not part of the first column's name.
	pods, err := ReadPods(strings.NewReader("\ufeff"+podHeader+"a,1000,1024,1,500,,LS,Running,10,20,10\n"), "bom.csv")
	require.NoError(t, err)
	require.Len(t, pods, 1)
	assert.Equal(t, "a", pods[0].Name)
	nodes, err := ReadNodes(strings.NewReader("\ufeffsn,cpu_milli,memory_mib,gpu,model\nn0,1,1,0,\n"), "bom.csv")
	require.NoError(t, err)
	assert.Equal(t, "n0", nodes[0].Name)
}

// A huge field is cut at MaxRecordBytes while reading, with the line of the
// record, instead of being buffered whole (a 1 GB field aborted the
// process).
func TestCSVRecordLength(t *testing.T) {
	lim := Limits{MaxRecordBytes: 1000}
	long := strings.Repeat("x", 5000)
	for _, tc := range []struct {
		name, body string
		line       int
	}{
		{"long name", "a,1,1,0,0,,LS,Running,1,2,1\n" + long + ",1,1,0,0,,LS,Running,1,2,1\n", 3},
		{"long quoted field over lines", "a,1,1,0,0,,LS,Running,1,2,1\nb,1,1,0,0,\"" + strings.Repeat("x\n", 2000) + "\",LS,Running,1,2,1\n", 3},
		{"no newline at all", long, 2},
		{"long header", strings.Repeat("y", 5000) + "\n", 1},
	} {
		in := podHeader + tc.body
		if tc.name == "long header" {
			in = tc.body
		}
		_, err := lim.ReadPods(strings.NewReader(in), "long.csv")
		require.ErrorIs(t, err, ErrTooLarge, tc.name)
		assert.Equal(t, tc.line, parseErr(t, err).Line, tc.name)
		assert.Contains(t, err.Error(), "MaxRecordBytes = 1000", tc.name)
	}
	// Escaped quotes and quoted commas/newlines within the limit are fine.
	pods, err := lim.ReadPods(strings.NewReader(podHeader+"\"a \"\"x\"\",\ny\",1,1,0,0,,LS,Running,1,2,1\nb,1,1,0,0,,LS,Running,1,2,1\n"), "q.csv")
	require.NoError(t, err)
	require.Len(t, pods, 2)
	assert.Equal(t, "a \"x\",\ny", pods[0].Name)
	// The default allows 1 MiB.
	_, err = ReadPods(io.MultiReader(strings.NewReader(podHeader), bytes.NewReader(bytes.Repeat([]byte("z"), 2<<20))), "big.csv")
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestCSVValueLimits(t *testing.T) {
	for _, tc := range []struct {
		row, col string
		want     error
	}{
		{"a,1,1,0,0,,LS,Running,0,9223372036854775807,0\n", "deletion_time", ErrTooLarge},
		{"a,1,1,0,0,,LS,Running,1099511627777,1099511627778,\n", "creation_time", ErrTooLarge},
		{"a,9223372036854775807,1,0,0,,LS,Running,0,1,0\n", "cpu_milli", ErrTooLarge},
		{"a,1,1099511627777,0,0,,LS,Running,0,1,0\n", "memory_mib", ErrTooLarge},
		{"a,1,1,-1,0,,LS,Running,0,1,0\n", "num_gpu", ErrValue},
		{"a,1,1,0,0,,LS,Running,-1,1,0\n", "creation_time", ErrValue},
	} {
		_, err := ReadPods(strings.NewReader(podHeader+tc.row), "v.csv")
		require.ErrorIs(t, err, tc.want, tc.row)
		pe := parseErr(t, err)
		assert.Equal(t, tc.col, pe.Column, tc.row)
		assert.Equal(t, 2, pe.Line, tc.row)
	}
	lim := Limits{MaxRows: 2}
	_, err := lim.ReadPods(strings.NewReader(podHeader+"a,1,1,0,0,,,,0,1,\nb,1,1,0,0,,,,0,1,\nc,1,1,0,0,,,,0,1,\n"), "rows.csv")
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Equal(t, 4, parseErr(t, err).Line)
}

// extremeTrace is the fixture's nodes with two hand-built pods created at
// the given times (a Trace built in code bypasses the reader's checks).
func extremeTrace(t *testing.T, c0, c1 int64) *Trace {
	t.Helper()
	tr := readFixture(t)
	tr.Pods = []Pod{
		{Name: "a", CPUMilli: 1000, MemoryMiB: 1024, HasTimes: true, Creation: c0, Deletion: c0 + 10, Scheduled: c0},
		{Name: "b", CPUMilli: 1000, MemoryMiB: 1024, HasTimes: true, Creation: c1, Deletion: c1, Scheduled: c1},
	}
	return tr
}

type mapping struct {
	name string
	run  func(tr *Trace, lim Limits) error
}

var mappings = []mapping{
	{"OGASched", func(tr *Trace, lim Limits) error { _, err := OGASched(tr, OGASchedSettings{Limits: lim}); return err }},
	{"ESDP", func(tr *Trace, lim Limits) error { _, err := ESDP(tr, ESDPSettings{Limits: lim}); return err }},
	{"OnSocMax", func(tr *Trace, lim Limits) error { _, err := OnSocMax(tr, OnSocMaxSettings{Limits: lim}); return err }},
	{"OCORP", func(tr *Trace, lim Limits) error {
		_, err := OCORP(tr, OCORPSettings{Machines: -1, Limits: lim})
		return err
	}},
}

// Two pods created at 0 and MaxInt64 gave negative-index panics (OGASched,
// ESDP), a makeslice panic (OnSocMax) and a hang (OCORP); a span of 1e15 s
// allocated 92 GB (OnSocMax). Every mapping now rejects the timestamps,
// names the pod, the field, the value and the limit, or (within the
// limits) maps them with memory independent of the span.
func TestMappingsExtremeTimestamps(t *testing.T) {
	for _, m := range mappings {
		for _, c1 := range []int64{math.MaxInt64, math.MaxInt64 - 1, 1e15, DefaultMaxTime + 1} {
			err := m.run(extremeTrace(t, 0, c1), Limits{})
			require.ErrorIs(t, err, ErrTooLarge, "%s c1=%d", m.name, c1)
			for _, s := range []string{`pod 1 ("b")`, "creation_time", fmt.Sprint(c1), "MaxTime"} {
				assert.Contains(t, err.Error(), s, m.name)
			}
		}
		for _, p := range []Pod{
			{Name: "n", CPUMilli: 1, MemoryMiB: 1, HasTimes: true, Creation: -5, Deletion: 0, Scheduled: -1},
			{Name: "d", CPUMilli: 1, MemoryMiB: 1, HasTimes: true, Creation: 5, Deletion: 4, Scheduled: -1},
			{Name: "s", CPUMilli: 1, MemoryMiB: 1, HasTimes: true, Creation: 5, Deletion: 7, Scheduled: 9},
			{Name: "", CPUMilli: 1, MemoryMiB: 1},
			{Name: "m", CPUMilli: 1, MemoryMiB: -1},
			{Name: "g", CPUMilli: 1, MemoryMiB: 1, NumGPU: 0, GPUMilli: 5},
		} {
			tr := extremeTrace(t, 0, 10)
			tr.Pods = append(tr.Pods, p)
			require.ErrorIs(t, m.run(tr, Limits{}), ErrValue, "%s %+v", m.name, p)
		}
		require.ErrorIs(t, m.run(nil, Limits{}), ErrEmpty, m.name)
	}
	// Within raised limits a span of 1e15 s maps without a table per
	// window or per second.
	raised := Limits{MaxTime: 1 << 60}
	for _, m := range mappings[:3] {
		require.NoError(t, m.run(extremeTrace(t, 0, 1e15), raised), m.name)
	}
	err := mappings[3].run(extremeTrace(t, 0, 1e15), raised)
	require.ErrorIs(t, err, ErrTooLarge, "OCORP: 1e15 s is 1.7e12 slots of 600 s")
	assert.Contains(t, err.Error(), "MaxSlots")
	assert.Contains(t, err.Error(), `"b"`)
}

func TestMappingOptionsHostile(t *testing.T) {
	tr := readFixture(t)
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"OGASched T", func() error { _, err := OGASched(tr, OGASchedSettings{T: math.MaxInt}); return err }(), ErrTooLarge},
		{"OGASched T×ports", func() error {
			_, err := OGASched(tr, OGASchedSettings{T: 1000, Limits: Limits{MaxCells: 100}})
			return err
		}(), ErrTooLarge},
		{"OGASched contention NaN", func() error { _, err := OGASched(tr, OGASchedSettings{Contention: math.NaN()}); return err }(), ErrValue},
		{"OGASched contention Inf", func() error { _, err := OGASched(tr, OGASchedSettings{Contention: math.Inf(1)}); return err }(), ErrValue},
		{"ESDP T", func() error { _, err := ESDP(tr, ESDPSettings{T: math.MaxInt}); return err }(), ErrTooLarge},
		{"ESDP alpha", func() error { _, err := ESDP(tr, ESDPSettings{Alpha: 2}); return err }(), ErrValue},
		{"ESDP alpha NaN", func() error { _, err := ESDP(tr, ESDPSettings{Alpha: math.NaN()}); return err }(), ErrValue},
		{"OnSocMax slots", func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Slots: math.MaxInt}); return err }(), ErrTooLarge},
		{"OnSocMax slot seconds", func() error {
			_, err := OnSocMax(tr, OnSocMaxSettings{SlotSeconds: math.MaxInt64})
			return err
		}(), ErrTooLarge},
		{"OnSocMax day", func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Day: math.MaxInt}); return err }(), ErrEmpty},
		{"OnSocMax units", func() error {
			_, err := OnSocMax(tr, OnSocMaxSettings{Slots: 1 << 20, SlotSeconds: 1, Limits: Limits{MaxCells: 1000}})
			return err
		}(), ErrTooLarge},
		{"OnSocMax scale", func() error { _, err := OnSocMax(tr, OnSocMaxSettings{CapacityScale: -1}); return err }(), ErrValue},
		{"OGASched types × nodes", func() error {
			_, err := OGASched(tr, OGASchedSettings{Nodes: -1, Limits: Limits{MaxCells: 20}})
			return err
		}(), ErrTooLarge},
		{"ESDP types × nodes", func() error { _, err := ESDP(tr, ESDPSettings{Limits: Limits{MaxCells: 20}}); return err }(), ErrTooLarge},
		{"OnSocMax pods × nodes", func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Limits: Limits{MaxCells: 20}}); return err }(), ErrTooLarge},
		{"OCORP horizon", func() error {
			_, err := OCORP(tr, OCORPSettings{SlotSeconds: 1, Limits: Limits{MaxSlots: 100}})
			return err
		}(), ErrTooLarge},
	} {
		require.ErrorIs(t, tc.err, tc.want, tc.name)
	}
	// The largest options within the limits still work on the fixture.
	_, err := OnSocMax(tr, OnSocMaxSettings{SlotSeconds: math.MaxInt32})
	require.NoError(t, err)
	_, err = OCORP(tr, OCORPSettings{SlotSeconds: math.MaxInt64, Machines: -1})
	require.NoError(t, err)
}

func TestCeilDiv(t *testing.T) {
	for _, a := range []int64{0, 1, 4095, 4096, 4097, math.MaxInt64 - 1, math.MaxInt64} {
		for _, b := range []int64{1, 2, 600, 4096, math.MaxInt64} {
			want := a / b
			if a%b != 0 {
				want++
			}
			got := ceilDiv(a, b)
			require.Equal(t, want, got, "%d/%d", a, b)
			require.True(t, got >= 0 && (got-1)*b < a || a == 0, "%d/%d", a, b)
		}
	}
}

// Issue 12 class 5 with raised limits: a caller who raised every Limits
// field to its maximum (MaxTime = MaxInt64) let pods created at 0 and
// MaxInt64 through, the span last-first+1 wrapped to MinInt64 and
// OGASched indexed slot -2000 (a panic). MaxTime is now capped at
// CeilingMaxTime, so those timestamps are an error naming the limit, and
// the largest accepted ones map without overflow.
func TestRaisedLimitsKeepTimestampArithmeticSafe(t *testing.T) {
	// Every field at its ceiling (above it, Validate refuses: issue 22).
	raised := Limits{MaxRecordBytes: CeilingMaxRecordBytes, MaxRows: CeilingMaxRows, MaxTime: CeilingMaxTime,
		MaxResource: CeilingMaxResource, MaxSlots: CeilingMaxSlots, MaxCells: 1 << 20}
	require.NoError(t, raised.Validate())
	assert.Equal(t, int64(CeilingMaxTime), raised.withDefaults().MaxTime)
	for _, m := range mappings {
		for _, span := range [][2]int64{{0, math.MaxInt64}, {math.MaxInt64 - 10, math.MaxInt64}, {CeilingMaxTime + 1, CeilingMaxTime + 1}} {
			err := m.run(extremeTrace(t, span[0], span[1]), raised)
			require.ErrorIs(t, err, ErrTooLarge, "%s %v", m.name, span)
			assert.Contains(t, err.Error(), "MaxTime", m.name)
		}
		for _, span := range [][2]int64{{0, CeilingMaxTime - 10}, {CeilingMaxTime - 20, CeilingMaxTime - 10}} {
			err := m.run(extremeTrace(t, span[0], span[1]), raised)
			if err != nil {
				require.ErrorIs(t, err, ErrTooLarge, "%s %v: an error must be a limit, not a wrap", m.name, span)
			}
		}
	}
	// Raising MaxSlots alone does not let ESDP allocate one flag per slot
	// of a huge T: the table is bounded by MaxCells as well.
	_, err := ESDP(readFixture(t), ESDPSettings{T: 1 << 30, Limits: Limits{MaxSlots: CeilingMaxSlots, MaxCells: 1 << 20}})
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "MaxCells")
}

// Issue 12 class 1 for gpu_spec: a 1 MiB field "a|a|..." split into half a
// million model names (8 MiB of string headers per row, eight times the
// file); a pod lists at most MaxGPUSpec models, in the reader and in
// CheckPod for hand-built traces.
func TestGPUSpecBounded(t *testing.T) {
	ok := strings.TrimSuffix(strings.Repeat("m|", MaxGPUSpec), "|")
	pods, err := ReadPods(strings.NewReader(podHeader+"a,1,1,1,1000,"+ok+",LS,Running,0,1,0\n"), "s.csv")
	require.NoError(t, err)
	require.Len(t, pods[0].GPUSpec, MaxGPUSpec)
	long := strings.Repeat("a|", 500_000) + "a"
	_, err = ReadPods(strings.NewReader(podHeader+"a,1,1,1,1000,"+long+",LS,Running,0,1,0\n"), "s.csv")
	require.ErrorIs(t, err, ErrTooLarge)
	pe := parseErr(t, err)
	assert.Equal(t, "gpu_spec", pe.Column)
	assert.Contains(t, err.Error(), "MaxGPUSpec")
	assert.Less(t, len(pe.Value), 100, "the error does not carry the whole field")
	tr := extremeTrace(t, 0, 10)
	tr.Pods[0].NumGPU, tr.Pods[0].GPUMilli, tr.Pods[0].GPUSpec = 1, 1000, strings.Split(long, "|")
	for _, m := range mappings {
		require.ErrorIs(t, m.run(tr, Limits{}), ErrTooLarge, m.name)
	}
}

// TestLimitsCeilings is issue 22 class 5: a limit above its ceiling (here
// MaxInt, which with T = 1e9 tried to allocate terabytes) is an error
// from Validate naming the field, the value and the ceiling, returned by
// every reader, Check method and mapping before anything is allocated.
func TestLimitsCeilings(t *testing.T) {
	tr := readFixture(t)
	for _, tc := range []struct {
		field string
		lim   Limits
	}{
		{"MaxRecordBytes", Limits{MaxRecordBytes: math.MaxInt}},
		{"MaxRows", Limits{MaxRows: CeilingMaxRows + 1}},
		{"MaxTime", Limits{MaxTime: math.MaxInt64}},
		{"MaxResource", Limits{MaxResource: math.MaxInt64}},
		{"MaxSlots", Limits{MaxSlots: math.MaxInt}},
		{"MaxCells", Limits{MaxCells: math.MaxInt}},
	} {
		err := tc.lim.Validate()
		require.ErrorIs(t, err, ErrTooLarge, tc.field)
		require.Contains(t, err.Error(), "Limits."+tc.field, tc.field)
		require.Contains(t, err.Error(), "ceiling", tc.field)
		for name, run := range map[string]func() error{
			"OGASched": func() error { _, err := OGASched(tr, OGASchedSettings{T: 1e9, Limits: tc.lim}); return err },
			"ESDP":     func() error { _, err := ESDP(tr, ESDPSettings{T: 1e9, Limits: tc.lim}); return err },
			"OnSocMax": func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Limits: tc.lim}); return err },
			"OCORP":    func() error { _, err := OCORP(tr, OCORPSettings{Limits: tc.lim}); return err },
			"ReadPods": func() error { _, err := tc.lim.ReadPods(strings.NewReader("name\n"), "p.csv"); return err },
			"CheckPod": func() error { return tc.lim.CheckPod(0, Pod{Name: "a"}) },
		} {
			err := run()
			require.ErrorIs(t, err, ErrTooLarge, "%s %s", tc.field, name)
			require.Contains(t, err.Error(), "Limits."+tc.field, "%s %s", tc.field, name)
		}
	}
	// Several fields above their ceilings are all named.
	err := Limits{MaxSlots: math.MaxInt, MaxCells: math.MaxInt}.Validate()
	require.ErrorContains(t, err, "MaxSlots")
	require.ErrorContains(t, err, "MaxCells")
	require.NoError(t, DefaultLimits().Validate())
}

// TestMappingOptionsNegative is issue 22 class 6: a negative count or
// length in a mapping's options is an error naming the option (it was
// replaced by the default); 0 keeps the default, -1 means "all" where
// documented.
func TestMappingOptionsNegative(t *testing.T) {
	tr := readFixture(t)
	for name, run := range map[string]func() error{
		"OGASchedSettings.Ports":       func() error { _, err := OGASched(tr, OGASchedSettings{Ports: -1}); return err },
		"OGASchedSettings.Nodes":       func() error { _, err := OGASched(tr, OGASchedSettings{Nodes: -2}); return err },
		"OGASchedSettings.T":           func() error { _, err := OGASched(tr, OGASchedSettings{T: -5}); return err },
		"ESDPSettings.Ports":           func() error { _, err := ESDP(tr, ESDPSettings{Ports: -1}); return err },
		"ESDPSettings.Servers":         func() error { _, err := ESDP(tr, ESDPSettings{Servers: -1}); return err },
		"ESDPSettings.Degree":          func() error { _, err := ESDP(tr, ESDPSettings{Degree: -1}); return err },
		"ESDPSettings.T":               func() error { _, err := ESDP(tr, ESDPSettings{T: math.MinInt}); return err },
		"OnSocMaxSettings.Nodes":       func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Nodes: -1}); return err },
		"OnSocMaxSettings.Slots":       func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Slots: -1}); return err },
		"OnSocMaxSettings.SlotSeconds": func() error { _, err := OnSocMax(tr, OnSocMaxSettings{SlotSeconds: -3600}); return err },
		"OnSocMaxSettings.Day":         func() error { _, err := OnSocMax(tr, OnSocMaxSettings{Day: -1}); return err },
		"OnSocMaxSettings.MaxJobs":     func() error { _, err := OnSocMax(tr, OnSocMaxSettings{MaxJobs: -1}); return err },
		"OCORPSettings.SlotSeconds":    func() error { _, err := OCORP(tr, OCORPSettings{SlotSeconds: -600}); return err },
		"OCORPSettings.Jobs":           func() error { _, err := OCORP(tr, OCORPSettings{Jobs: -1}); return err },
		"OCORPSettings.Machines":       func() error { _, err := OCORP(tr, OCORPSettings{Machines: -2}); return err },
		"OCORPSettings.MaxProcessing":  func() error { _, err := OCORP(tr, OCORPSettings{MaxProcessing: -1}); return err },
	} {
		err := run()
		require.ErrorIs(t, err, ErrValue, name)
		require.ErrorContains(t, err, name+" = ", name)
	}
	_, err := OGASched(tr, OGASchedSettings{Nodes: -1})
	require.NoError(t, err)
	_, err = OCORP(tr, OCORPSettings{Machines: -1})
	require.NoError(t, err)
}

// TestNilReaders is issue 22 class 4: a nil io.Reader is an error wrapping
// ErrEmpty, not a nil dereference.
func TestNilReaders(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := ReadPods(nil, "pods.csv")
		require.ErrorIs(t, err, ErrEmpty)
		_, err = ReadNodes(nil, "nodes.csv")
		require.ErrorIs(t, err, ErrEmpty)
		_, err = NewPodReader(nil, "pods.csv")
		require.ErrorIs(t, err, ErrEmpty)
	})
}
