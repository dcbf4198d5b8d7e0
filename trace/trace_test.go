package trace

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readFixture(t *testing.T) *Trace {
	t.Helper()
	tr := &Trace{Dir: "testdata", PodFile: "pods.csv"}
	var err error
	if tr.Nodes, err = readFile(filepath.Join("testdata", "nodes.csv"), ReadNodes); err != nil {
		t.Fatal(err)
	}
	if tr.Pods, err = readFile(filepath.Join("testdata", "pods.csv"), ReadPods); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadFixture(t *testing.T) {
	tr := readFixture(t)
	if len(tr.Nodes) != 5 || len(tr.Pods) != 8 {
		t.Fatalf("got %d nodes, %d pods; want 5, 8", len(tr.Nodes), len(tr.Pods))
	}
	if n := tr.Nodes[1]; n != (Node{Name: "n1", CPUMilli: 96000, MemoryMiB: 393216, GPU: 8, Model: "G2"}) {
		t.Errorf("node 1 = %+v", n)
	}
	p := tr.Pods[2]
	if p.Name != "p2" || !slices.Equal(p.GPUSpec, []string{"V100M16", "V100M32"}) || p.Creation != 100 || p.Deletion != 1000 || p.Scheduled != 100 || !p.HasTimes {
		t.Errorf("pod 2 = %+v", p)
	}
	if p := tr.Pods[5]; p.Scheduled != -1 || p.Phase != "Pending" || p.Duration() != 1000 {
		t.Errorf("pending pod = %+v, duration %d", p, p.Duration())
	}
	if d := tr.Pods[1].Duration(); d != 750 {
		t.Errorf("duration of p1 = %d, want 900-150", d)
	}
	if g := tr.Pods[1].GPU(); g != 0.46 {
		t.Errorf("GPU of p1 = %v", g)
	}
}

func TestReadPodsWithoutTimes(t *testing.T) {
	pods, err := readFile(filepath.Join("testdata", "pods_notimes.csv"), ReadPods)
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 2 || pods[0].HasTimes || pods[1].NumGPU != 8 {
		t.Fatalf("%+v", pods)
	}
	if _, _, ok := CreationSpan(pods); ok {
		t.Error("CreationSpan of untimed pods reported ok")
	}
}

// TestMalformedRowsNameFileLineColumn feeds one bad row at a time and checks
// the error's sentinel, line and column.
func TestMalformedRowsNameFileLineColumn(t *testing.T) {
	const head = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	const good = "a,1000,1024,1,500,,LS,Running,10,20,10\n"
	for _, c := range []struct {
		name, row string
		err       error
		line      int
		column    string
	}{
		{"letters", "b,12x,1024,1,500,,LS,Running,10,20,10\n", ErrValue, 3, "cpu_milli"},
		{"negative memory", "b,1000,-1,1,500,,LS,Running,10,20,10\n", ErrValue, 3, "memory_mib"},
		{"gpu share above 1000", "b,1000,1,1,1500,,LS,Running,10,20,10\n", ErrValue, 3, "gpu_milli"},
		{"share without gpu", "b,1000,1,0,500,,LS,Running,10,20,10\n", ErrValue, 3, "gpu_milli"},
		{"deletion before creation", "b,1000,1,1,500,,LS,Running,10,5,\n", ErrValue, 3, "deletion_time"},
		{"scheduled after deletion", "b,1000,1,1,500,,LS,Running,10,20,30\n", ErrValue, 3, "scheduled_time"},
		{"unsorted creation", "b,1000,1,1,500,,LS,Running,5,20,5\n", ErrOrder, 3, "creation_time"},
		{"duplicate name", "a,1000,1,1,500,,LS,Running,10,20,10\n", ErrDuplicate, 3, "name"},
		{"empty model in spec", "b,1000,1,1,500,V100||T4,LS,Running,10,20,10\n", ErrValue, 3, "gpu_spec"},
		{"empty name", ",1000,1,1,500,,LS,Running,10,20,10\n", ErrValue, 3, "name"},
		{"missing field", "b,1000,1,1,500,,LS,Running,10,20\n", ErrSyntax, 3, ""},
		{"bad quote", "b,\"1000,1,1,500,,LS,Running,10,20,10\n", ErrSyntax, 3, ""},
		{"float", "b,1000.5,1,1,500,,LS,Running,10,20,10\n", ErrValue, 3, "cpu_milli"},
	} {
		_, err := ReadPods(strings.NewReader(head+good+c.row), "pods.csv")
		var pe *ParseError
		if !errors.Is(err, c.err) || !errors.As(err, &pe) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.err)
			continue
		}
		if pe.File != "pods.csv" || pe.Line != c.line || pe.Column != c.column {
			t.Errorf("%s: at %s:%d column %q, want line %d column %q (%v)", c.name, pe.File, pe.Line, pe.Column, c.line, c.column, err)
		}
	}
}

func TestMalformedHeaders(t *testing.T) {
	for _, s := range []string{
		"",
		"name,cpu_milli,memory_mib,num_gpu\n",
		"name,cpu_milli,cpu_milli,memory_mib,num_gpu,gpu_milli\n",
		"name,cpu_milli,memory_mib,num_gpu,gpu_milli,creation_time\n",
	} {
		if _, err := ReadPods(strings.NewReader(s), "x.csv"); !errors.Is(err, ErrHeader) {
			t.Errorf("header %q: %v, want ErrHeader", s, err)
		}
	}
	if _, err := ReadNodes(strings.NewReader("sn,cpu_milli,gpu,model\n"), "n.csv"); !errors.Is(err, ErrHeader) {
		t.Errorf("node header without memory: %v", err)
	}
	for _, row := range []string{"n0,1000,1,2,\n", "n0,1000,1,x,G2\n", "n0,-5,1,0,\n"} {
		if _, err := ReadNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\n"+row), "n.csv"); !errors.Is(err, ErrValue) {
			t.Errorf("node row %q: %v, want ErrValue", row, err)
		}
	}
	if _, err := ReadNodes(strings.NewReader("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,0,\nn,1,1,0,\n"), "n.csv"); !errors.Is(err, ErrDuplicate) {
		t.Errorf("duplicate node: %v", err)
	}
}

func TestLoadMissingFolder(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope"), "")
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Load of a missing folder: %v", err)
	}
	t.Setenv(DirEnv, filepath.Join(t.TempDir(), "nope"))
	if _, err := DefaultDir(); !errors.Is(err, ErrNotFound) {
		t.Fatalf("DefaultDir with a missing $%s: %v", DirEnv, err)
	}
}

func TestJobTypesAndFit(t *testing.T) {
	tr := readFixture(t)
	types := JobTypes(tr.Pods, 0)
	// p1, p4, p7 share a shape; p0 and p6 share one; p2 differs by its spec.
	if len(types) != 5 || len(types[0].Pods) != 3 || len(types[1].Pods) != 2 {
		t.Fatalf("types %+v", types)
	}
	if !slices.Equal(types[0].Pods, []int{1, 4, 7}) || !slices.Equal(types[1].Pods, []int{0, 6}) {
		t.Errorf("members %v %v", types[0].Pods, types[1].Pods)
	}
	spec := tr.Pods[2].Shape()
	for i, want := range []bool{false, false, true, false, false} {
		if got := spec.Fits(tr.Nodes[i]); got != want {
			t.Errorf("V100 pod fits node %d = %v, want %v", i, got, want)
		}
	}
	eight := tr.Pods[5].Shape()
	for i, want := range []bool{false, true, false, false, false} {
		if got := eight.Fits(tr.Nodes[i]); got != want {
			t.Errorf("8-GPU G2 pod fits node %d = %v, want %v", i, got, want)
		}
	}
	if !tr.Pods[3].Shape().Fits(tr.Nodes[0]) {
		t.Error("CPU pod does not fit the CPU node")
	}
	if got := JobTypes(tr.Pods, 2); len(got) != 2 {
		t.Errorf("JobTypes(n=2) kept %d", len(got))
	}
}

func TestSampleNodesDeterministic(t *testing.T) {
	nodes := make([]Node, 50)
	a := SampleNodes(nodes, 10, rand.New(rand.NewPCG(3, 3)))
	b := SampleNodes(nodes, 10, rand.New(rand.NewPCG(3, 3)))
	if !slices.Equal(a, b) || len(a) != 10 || !slices.IsSorted(a) {
		t.Fatalf("%v %v", a, b)
	}
	if all := SampleNodes(nodes, 0, nil); len(all) != 50 {
		t.Fatalf("all: %d", len(all))
	}
}

// realTrace loads the shared trace or skips.
func realTrace(t testing.TB) *Trace {
	dir, err := DefaultDir()
	if err != nil {
		t.Skipf("real trace not available: %v", err)
	}
	tr, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestRealTraceLoads(t *testing.T) {
	tr := realTrace(t)
	if len(tr.Nodes) != 1523 || len(tr.Pods) != 8152 {
		t.Fatalf("%d nodes, %d pods; want 1523, 8152 (SPEC.md)", len(tr.Nodes), len(tr.Pods))
	}
	dir, _ := DefaultDir()
	for _, f := range []string{"openb_pod_list_gpuspec33.csv", "openb_pod_list_multigpu50.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			continue
		}
		if _, err := Load(dir, f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
