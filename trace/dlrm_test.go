package trace

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const dlrmHeader = "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n"

func TestReadDLRMFixture(t *testing.T) {
	in := dlrmHeader +
		"instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n" +
		"instance_1,CN,app_0,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,1435629.0,1435629.0,1435760.0\n" +
		"instance_2,CN,app_1,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,475.00000000000006,475.00000000000006,NaN\n"
	got, err := ReadDLRM(strings.NewReader(in), "d.csv")
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, DLRMInstance{Name: "instance_0", Role: RoleHN, App: "app_0", CPU: 12, GPU: 1, RDMA: 25, MemoryGiB: 120, DiskGiB: 640, MaxPerNode: 8}, got[0])
	assert.True(t, got[1].HasCreation && got[1].HasDeletion)
	assert.Equal(t, 1435760.0, got[1].Deletion)
	assert.Equal(t, -1, got[1].MaxPerNode)
	assert.False(t, got[2].HasDeletion)
}

func TestReadDLRMErrors(t *testing.T) {
	row := func(s string) string { return dlrmHeader + s + "\n" }
	good := "i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,10,10,20"
	cases := []struct {
		name, in, col string
		err           error
	}{
		{"role", row(strings.Replace(good, "CN", "XN", 1)), "role", ErrValue},
		{"negative cpu", row(strings.Replace(good, "i,CN,a,8", "i,CN,a,-8", 1)), "cpu_request", ErrValue},
		{"rdma above 100", row("i,CN,a,8,8,0,0,101,101,40.0,40.0,85.0,100.0,2,10,10,20"), "rdma_request", ErrValue},
		{"NaN memory", row("i,CN,a,8,8,0,0,1,1,NaN,40.0,85.0,100.0,2,10,10,20"), "memory_request", ErrValue},
		{"limit below request", row("i,CN,a,8,4,0,0,1,1,40.0,40.0,85.0,100.0,2,10,10,20"), "cpu_limit", ErrValue},
		{"deletion before creation", row("i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,10,10,5"), "deletion_time", ErrValue},
		{"scheduled before creation", row("i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,10,5,20"), "scheduled_time", ErrValue},
		{"max per node 0", row("i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,0,10,10,20"), "max_instance_per_node", ErrValue},
		{"huge time", row("i,CN,a,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1e300,1e300,1e300"), "creation_time", ErrTooLarge},
		{"duplicate", row(good) + good + "\n", "instance_sn", ErrDuplicate},
		{"missing column", "instance_sn,role\ni,CN\n", "", ErrHeader},
	}
	for _, c := range cases {
		_, err := ReadDLRM(strings.NewReader(c.in), "d.csv")
		require.ErrorIs(t, err, c.err, c.name)
		var pe *ParseError
		require.True(t, errors.As(err, &pe), c.name)
		assert.Equal(t, c.col, pe.Column, c.name)
	}
	_, err := Limits{MaxRows: 1}.ReadDLRM(strings.NewReader(row(good)+strings.Replace(good, "i,", "j,", 1)+"\n"), "d.csv")
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestDLRMGangInstanceSmall(t *testing.T) {
	in := dlrmHeader +
		"a0,HN,app_0,8,8,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n" +
		"a1,CN,app_0,64,64,0,0,1,1,320.0,320.0,256.0,300.0,-1,3700,3700,\n" +
		"a2,CN,app_0,64,64,0,0,1,1,320.0,320.0,256.0,300.0,-1,10,10,\n" +
		"b0,CN,app_1,8,8,0,0,1,1,64.0,64.0,256.0,300.0,2,7300,7300,\n"
	ins, err := ReadDLRM(strings.NewReader(in), "d.csv")
	require.NoError(t, err)
	g, err := DLRMGangInstance(ins, DLRMGangSettings{CNNodes: 2, HNNodes: 1})
	require.NoError(t, err)
	m := g.Model
	require.Equal(t, 2, m.NumJobs())
	assert.Equal(t, []int{2, 1}, g.CN)
	assert.Equal(t, []int{1, 0}, g.HN)
	assert.Equal(t, 3, m.Min(0))
	// app_0: two CN components (8, 0, 5, 0.04, 1, 1) then one HN (1, 1, 1.875, 1, 2.5, 0).
	assert.Equal(t, []float64{8, 0, 5, 0.04, 1, 1}, m.Demand(0))
	assert.Equal(t, []float64{1, 1, 1.875, 1, 2.5, 0}, m.Demand(2))
	assert.Equal(t, [][]float64{{1, 0}, {1, 0}, {0, 1}}, g.Arrivals)
	// HN components fit only HN servers, CN components only CN servers.
	assert.False(t, m.Fits(2, 0))
	assert.True(t, m.Fits(2, 2))
	assert.True(t, m.Fits(0, 0))
	assert.False(t, m.Fits(0, 2))
	_, err = DLRMGangInstance(ins, DLRMGangSettings{SlotSeconds: 1e-9})
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = DLRMGangInstance(nil, DLRMGangSettings{})
	require.ErrorIs(t, err, ErrEmpty)
}

// TestDLRMTrace loads the real trace when present.
func TestDLRMTrace(t *testing.T) {
	dir, err := DefaultDLRMDir()
	if err != nil {
		t.Skipf("DLRM trace not available: %v", err)
	}
	ins, err := LoadDLRM(dir)
	require.NoError(t, err)
	require.Len(t, ins, 23871)
	cn, hn := 0, 0
	for _, in := range ins {
		if in.Role == RoleCN {
			cn++
		} else {
			hn++
		}
	}
	assert.Equal(t, 16485, cn) // the README's counts
	assert.Equal(t, 7386, hn)
	g, err := DLRMGangInstance(ins, DLRMGangSettings{})
	require.NoError(t, err)
	assert.Equal(t, 156, g.Model.NumJobs())
	t.Logf("T = %d, components = %d, timed = %d", len(g.Arrivals), g.Model.NumComponents(), g.Timed)
}

// rowsReader generates a DLRM file of n rows whose names are size bytes
// long (unique by their prefix), without holding it.
type rowsReader struct {
	n, size, row int
	buf          []byte
	header       bool
}

func (r *rowsReader) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		switch {
		case !r.header:
			r.header, r.buf = true, []byte(dlrmHeader)
		case r.row < r.n:
			name := fmt.Sprintf("instance_%d_", r.row) + strings.Repeat("x", r.size)
			r.buf = []byte(name + ",CN,app_0,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1,2,3\n")
			r.row++
		default:
			return 0, io.EOF
		}
	}
	k := copy(p, r.buf)
	r.buf = r.buf[k:]
	return k, nil
}

// TestDLRMReaderNamesBounded: issue 30. The reader kept every instance
// name to catch repeats, so 3 500 rows of ~1 MiB names held 3.5 GiB. Here
// 200 rows of 512 KiB names (100 MiB read): the live heap after reading
// stays under 8 MiB, and a repeated long name is still caught.
func TestDLRMReaderNamesBounded(t *testing.T) {
	rows, size := 200, 512<<10
	if testing.Short() {
		rows = 40 // 20 MiB read; the names would still hold 20 MiB
	}
	dr, err := NewDLRMReader(&rowsReader{n: rows, size: size}, "big.csv")
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for k := 0; ; k++ {
		_, err := dr.Read()
		if err == io.EOF {
			require.Equal(t, rows, k)
			break
		}
		require.NoError(t, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d rows of %d-byte names: %d bytes held", rows, size, held)
	require.Less(t, held, int64(8<<20), "the reader holds the names")
	runtime.KeepAlive(dr)

	long := strings.Repeat("y", 100000)
	in := dlrmHeader + long + ",CN,app_0,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1,2,3\n" +
		"short,CN,app_0,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1,2,3\n" +
		long + ",HN,app_1,8,8,0,0,1,1,40.0,40.0,85.0,100.0,2,1,2,3\n"
	_, err = ReadDLRM(strings.NewReader(in), "d.csv")
	require.ErrorIs(t, err, ErrDuplicate)
	require.Contains(t, err.Error(), "first on line 2")
}

// TestDLRMGangInstanceHandBuilt: issue 30. A hand-built instance with
// Role 7 panicked (index out of range), and Limits above their ceilings
// were not refused. Both are errors now, naming the field.
func TestDLRMGangInstanceHandBuilt(t *testing.T) {
	good := func() []DLRMInstance {
		return []DLRMInstance{
			{Name: "c1", Role: RoleCN, App: "a", CPU: 48, MemoryGiB: 200, RDMA: 25, DiskGiB: 100, MaxPerNode: -1, HasCreation: true, Creation: 10},
			{Name: "h1", Role: RoleHN, App: "a", CPU: 12, GPU: 1, MemoryGiB: 120, RDMA: 25, DiskGiB: 640, HasCreation: true, Creation: 4000},
		}
	}
	_, err := DLRMGangInstance(good(), DLRMGangOptions{})
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		edit func(in *DLRMInstance)
		want string
	}{
		{"role 7", func(in *DLRMInstance) { in.Role = 7 }, "Role = 7"},
		{"role -1", func(in *DLRMInstance) { in.Role = -1 }, "Role = -1"},
		{"rdma 101", func(in *DLRMInstance) { in.RDMA = 101 }, "RDMA = 101"},
		{"memory NaN", func(in *DLRMInstance) { in.MemoryGiB = math.NaN() }, "MemoryGiB = NaN"},
		{"scheduled before creation", func(in *DLRMInstance) { in.HasScheduled, in.Scheduled = true, 1 }, "Scheduled = 1 before Creation"},
		{"deletion time above MaxTime", func(in *DLRMInstance) { in.HasDeletion, in.Deletion = true, 1e300 }, "Deletion = 1e+300"},
	} {
		ins := good()
		c.edit(&ins[1])
		var err error
		require.NotPanics(t, func() { _, err = DLRMGangInstance(ins, DLRMGangOptions{}) }, c.name)
		require.ErrorIs(t, err, ErrValue, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
		require.Contains(t, err.Error(), `instance 1 ("h1")`, c.name)
	}
	_, err = DLRMGangInstance(good(), DLRMGangOptions{Limits: Limits{MaxTime: math.MaxInt64}})
	require.ErrorIs(t, err, ErrTooLarge)
	require.Contains(t, err.Error(), "Limits.MaxTime")
}
