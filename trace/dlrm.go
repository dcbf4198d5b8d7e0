package trace

import (
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DLRM trace files (Alibaba cluster-trace-gpu-v2025, GPU-disaggregated
// DLRM serving, NSDI'25 "Prism").
const (
	// DLRMFile is the trace's one CSV file.
	DLRMFile = "disaggregated_DLRM_trace.csv"
	// DLRMDirEnv names the environment variable that overrides DefaultDLRMDir.
	DLRMDirEnv = "MSCHED_DLRM_TRACE"
)

// MaxDLRMPerNode bounds max_instance_per_node: 2^20.
const MaxDLRMPerNode = 1 << 20

// DLRMRole is an instance's role: a CPU node (CN) or a heterogeneous GPU
// node (HN) component of a GPU-disaggregated DLRM service.
type DLRMRole int

const (
	// RoleCN is a CPU-node instance (the embedding / CPU part).
	RoleCN DLRMRole = iota
	// RoleHN is a heterogeneous-GPU-node instance (the dense / GPU part).
	RoleHN
)

// String returns "CN" or "HN".
func (r DLRMRole) String() string {
	if r == RoleHN {
		return "HN"
	}
	return "CN"
}

// DLRMInstance is one row of the DLRM trace. Requests are in the file's
// units: vCPUs, GPUs, percent of one RNIC's bandwidth (0-100), GiB of
// memory and disk. Times are seconds from the trace start; a time the file
// leaves empty or NaN (before the start, or after the end for deletions)
// has its Has flag false and the value 0.
type DLRMInstance struct {
	Name       string
	Role       DLRMRole
	App        string
	CPU        int64
	GPU        int64
	RDMA       int64
	MemoryGiB  float64
	DiskGiB    float64
	MaxPerNode int // max_instance_per_node: -1 (no limit) or >= 1

	HasCreation, HasScheduled, HasDeletion bool
	Creation, Scheduled, Deletion          float64
}

var (
	dlrmRequired = []string{"instance_sn", "role", "app_name", "cpu_request", "gpu_request", "rdma_request",
		"memory_request", "disk_request", "max_instance_per_node", "creation_time", "scheduled_time", "deletion_time"}
	dlrmOptional = []string{"cpu_limit", "gpu_limit", "rdma_limit", "memory_limit", "disk_limit"}
)

// DLRMReader streams the rows of the DLRM trace, checking each: a unique
// instance name, a role CN or HN, an app name, integer cpu, gpu and rdma
// requests (rdma in [0, 100]), finite non-negative memory and disk, every
// request at most MaxResource, limits (where present) not below their
// request, max_instance_per_node -1 or in [1, MaxDLRMPerNode], and times finite,
// in [0, MaxTime], with creation <= scheduled <= deletion where present.
// The file is not sorted by time; no order is required.
//
// To catch a repeated name the reader keeps, per row read, a 128-bit
// SHA-256 digest of the name and its line (about 50 bytes a row, so at
// most MaxRows of them), not the name: keeping every name let 3 500 rows
// of 1 MiB names hold 3.5 GiB (issue 30). Two different names with the
// same digest would be reported as a repeat; none is known.
type DLRMReader struct {
	t    *table
	seen map[nameDigest]int
}

// nameDigest is the first 128 bits of the SHA-256 of a name.
type nameDigest [16]byte

func digestName(name string) nameDigest {
	sum := sha256.Sum256([]byte(name))
	return nameDigest(sum[:16])
}

// NewDLRMReader reads the header of a DLRM trace with the default Limits;
// file names the source in errors.
func NewDLRMReader(r io.Reader, file string) (*DLRMReader, error) {
	return Limits{}.NewDLRMReader(r, file)
}

// NewDLRMReader is the package-level NewDLRMReader with the limits lim.
func (lim Limits) NewDLRMReader(r io.Reader, file string) (*DLRMReader, error) {
	t, err := newTable(r, file, dlrmRequired, dlrmOptional, lim)
	if err != nil {
		return nil, err
	}
	return &DLRMReader{t: t, seen: map[nameDigest]int{}}, nil
}

// float parses a finite float in [0, limit] (above: ErrTooLarge naming
// field).
func (t *table) float(name string, limit float64, field string) (float64, error) {
	s := t.str(name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, t.fail(name, s, "not a number")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, t.fail(name, s, "want finite >= 0")
	}
	if v > limit {
		return 0, &ParseError{File: t.file, Line: t.line, Column: name, Value: s,
			Err: fmt.Errorf("%w: %v above %s = %v", ErrTooLarge, v, field, limit)}
	}
	return v, nil
}

// optTime parses an optional time: empty or NaN (any case) is absent.
func (t *table) optTime(name string) (float64, bool, error) {
	s := t.str(name)
	if s == "" || strings.EqualFold(s, "nan") {
		return 0, false, nil
	}
	v, err := t.float(name, float64(t.lim.MaxTime), "MaxTime")
	return v, err == nil, err
}

// Read returns the next instance, or io.EOF after the last one. Errors are
// *ParseError values naming file, line and column.
func (dr *DLRMReader) Read() (DLRMInstance, error) {
	t := dr.t
	if err := t.next(); err != nil {
		return DLRMInstance{}, err
	}
	var in DLRMInstance
	var err error
	in.Name = t.str("instance_sn")
	if in.Name == "" {
		return DLRMInstance{}, t.fail("instance_sn", "", "empty instance name")
	}
	key := digestName(in.Name)
	if prev, dup := dr.seen[key]; dup {
		return DLRMInstance{}, &ParseError{File: t.file, Line: t.line, Column: "instance_sn", Value: in.Name, Err: fmt.Errorf("%w: first on line %d", ErrDuplicate, prev)}
	}
	switch s := t.str("role"); s {
	case "CN":
		in.Role = RoleCN
	case "HN":
		in.Role = RoleHN
	default:
		return DLRMInstance{}, t.fail("role", s, "want CN or HN")
	}
	if in.App = t.str("app_name"); in.App == "" {
		return DLRMInstance{}, t.fail("app_name", "", "empty app name")
	}
	maxRes := t.lim.MaxResource
	for _, f := range []struct {
		name string
		dst  *int64
		hi   int64
	}{{"cpu_request", &in.CPU, maxRes}, {"gpu_request", &in.GPU, maxRes}, {"rdma_request", &in.RDMA, 100}} {
		if f.hi == 100 {
			*f.dst, err = t.int64In(f.name, 0, 100)
		} else {
			*f.dst, err = t.int64Limit(f.name, 0, f.hi, "MaxResource")
		}
		if err != nil {
			return DLRMInstance{}, err
		}
	}
	if in.MemoryGiB, err = t.float("memory_request", float64(maxRes), "MaxResource"); err != nil {
		return DLRMInstance{}, err
	}
	if in.DiskGiB, err = t.float("disk_request", float64(maxRes), "MaxResource"); err != nil {
		return DLRMInstance{}, err
	}
	for _, f := range []struct {
		name string
		req  float64
	}{{"cpu_limit", float64(in.CPU)}, {"gpu_limit", float64(in.GPU)}, {"rdma_limit", float64(in.RDMA)},
		{"memory_limit", in.MemoryGiB}, {"disk_limit", in.DiskGiB}} {
		if !t.has(f.name) {
			continue
		}
		v, err := t.float(f.name, math.MaxFloat64, "")
		if err != nil {
			return DLRMInstance{}, err
		}
		if v < f.req {
			return DLRMInstance{}, t.fail(f.name, t.str(f.name), "limit %v below the request %v", v, f.req)
		}
	}
	mpn, err := t.int64In("max_instance_per_node", -1, MaxDLRMPerNode)
	if err != nil {
		return DLRMInstance{}, err
	}
	if mpn == 0 {
		return DLRMInstance{}, t.fail("max_instance_per_node", t.str("max_instance_per_node"), "want -1 (no limit) or >= 1")
	}
	in.MaxPerNode = int(mpn)
	if in.Creation, in.HasCreation, err = t.optTime("creation_time"); err != nil {
		return DLRMInstance{}, err
	}
	if in.Scheduled, in.HasScheduled, err = t.optTime("scheduled_time"); err != nil {
		return DLRMInstance{}, err
	}
	if in.Deletion, in.HasDeletion, err = t.optTime("deletion_time"); err != nil {
		return DLRMInstance{}, err
	}
	if in.HasCreation && in.HasScheduled && in.Scheduled < in.Creation {
		return DLRMInstance{}, t.fail("scheduled_time", t.str("scheduled_time"), "before creation_time %v", in.Creation)
	}
	for _, f := range []struct {
		has bool
		v   float64
		n   string
	}{{in.HasCreation, in.Creation, "creation_time"}, {in.HasScheduled, in.Scheduled, "scheduled_time"}} {
		if f.has && in.HasDeletion && in.Deletion < f.v {
			return DLRMInstance{}, t.fail("deletion_time", t.str("deletion_time"), "before %s %v", f.n, f.v)
		}
	}
	dr.seen[key] = t.line
	return in, nil
}

// ReadDLRM reads a whole DLRM trace with the default Limits.
func ReadDLRM(r io.Reader, file string) ([]DLRMInstance, error) { return Limits{}.ReadDLRM(r, file) }

// ReadDLRM is the package-level ReadDLRM with the limits lim.
func (lim Limits) ReadDLRM(r io.Reader, file string) ([]DLRMInstance, error) {
	dr, err := lim.NewDLRMReader(r, file)
	if err != nil {
		return nil, err
	}
	var out []DLRMInstance
	for {
		in, err := dr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
}

// LoadDLRM reads dir/disaggregated_DLRM_trace.csv with the default Limits.
// A missing folder or file gives an error wrapping ErrNotFound; a file
// without rows, ErrEmpty.
func LoadDLRM(dir string) ([]DLRMInstance, error) { return Limits{}.LoadDLRM(dir) }

// LoadDLRM is the package-level LoadDLRM with the limits lim.
func (lim Limits) LoadDLRM(dir string) ([]DLRMInstance, error) {
	ins, err := readFile(filepath.Join(dir, DLRMFile), lim.ReadDLRM)
	if err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("%w: no instances in %s", ErrEmpty, DLRMFile)
	}
	return ins, nil
}

// DefaultDLRMDir returns where the DLRM trace is expected: $MSCHED_DLRM_TRACE
// if set, else ../shared/traces/alibaba-dlrm-2025 next to the msched
// repository (found as DefaultDir finds it). It returns an error wrapping
// ErrNotFound when that folder does not exist.
func DefaultDLRMDir() (string, error) {
	if d := os.Getenv(DLRMDirEnv); d != "" {
		return checkDir(d)
	}
	openb, err := DefaultDir()
	if openb == "" {
		return "", err
	}
	return checkDir(filepath.Join(filepath.Dir(openb), "alibaba-dlrm-2025"))
}
