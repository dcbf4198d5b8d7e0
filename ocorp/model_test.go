package ocorp

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestFractionalFlowtimeExample1 reproduces Example 1 of the paper (k = 1,
// the fair scheduler of Table I): 3, 5.25 and 7 1/6.
func TestFractionalFlowtimeExample1(t *testing.T) {
	rates := [][]float64{
		{1. / 3, 1. / 3, 1. / 3},
		{1. / 3, 1. / 3, 1. / 3, 0.5, 0.5},
		{1. / 3, 1. / 3, 1. / 3, 0.5, 0.5, 1},
	}
	want := []float64{3, 5.25, 7 + 1./6}
	for i, y := range rates {
		got := FractionalFlowtime(Job{Arrival: 0, Cores: 1, Processing: i + 1}, y, 1)
		if math.Abs(got-want[i]) > 1e-12 {
			t.Errorf("job %d: fractional flowtime %v, want %v", i+1, got, want[i])
		}
	}
}

// TestGammaEq27 checks (27) on a hand instance: max(a+2p, 2a) = max(0+6,
// 5+2, 10) = 10 versus 4 * (3*2 + 1*1) / 4 = 7.
func TestGammaEq27(t *testing.T) {
	jobs := []Job{{0, 2, 0, 3}, {5, 1, 0, 1}}
	g, err := Gamma(jobs, []Machine{{4, 0}})
	if err != nil || g != 10 {
		t.Fatalf("Gamma = %v, %v; want 10", g, err)
	}
	g, _ = Gamma(jobs, []Machine{{1, 0}})
	if g != 28 { // 4 * 7 / 1
		t.Fatalf("Gamma = %v, want 28", g)
	}
	if LongTerm(jobs[0], 10, 0.5) != 3./10-0.5 {
		t.Fatal("LongTerm (7)")
	}
	if v := LkNorm([]float64{3, 4}, 2); v != 5 {
		t.Fatalf("LkNorm = %v", v)
	}
}

func TestValidationNamesIndexAndValue(t *testing.T) {
	for _, c := range []struct {
		jobs []Job
		msg  string
	}{
		{[]Job{{0, 1, 0, 1}, {-1, 1, 0, 1}}, "job 1: ocorp: invalid value: arrival -1"},
		{[]Job{{0, 0, 0, 1}}, "job 0: ocorp: invalid value: cores 0"},
		{[]Job{{0, 1, -2, 1}}, "memory -2"},
		{[]Job{{0, 1, 0, 0}}, "processing 0"},
	} {
		err := ValidateJobs(c.jobs)
		if !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ValidateJobs(%v) = %v, want %q", c.jobs, err, c.msg)
		}
	}
	if err := ValidateMachines(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("no machines: %v", err)
	}
	if err := ValidateMachines([]Machine{{1, 0}, {0, 5}}); !errors.Is(err, ErrValue) || !strings.Contains(err.Error(), "machine 1") {
		t.Errorf("bad machine: %v", err)
	}
}

func TestReadJobsCSV(t *testing.T) {
	in := "processing,arrival,cores,memory,extra\n10, 0,2,4,x\n5,3,1,0,y\n"
	jobs, err := ReadJobsCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{{0, 2, 4, 10}, {3, 1, 0, 5}}
	if len(jobs) != 2 || jobs[0] != want[0] || jobs[1] != want[1] {
		t.Fatalf("got %v want %v", jobs, want)
	}
	var buf bytes.Buffer
	if err := WriteJobsCSV(&buf, jobs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadJobsCSV(&buf)
	if err != nil || len(back) != 2 || back[0] != want[0] {
		t.Fatalf("round trip: %v %v", back, err)
	}
	for _, c := range []struct{ in, msg string }{
		{"", "no header"},
		{"arrival,cores,memory\n", `missing column "processing"`},
		{"arrival,cores,memory,processing\n1,2,3,4\n1,2,x3,4\n", `line 3: memory = "x3" is not an integer`},
		{"arrival,cores,memory,processing\n1,0,3,4\n", "line 2: ocorp: invalid value: cores 0"},
		{"arrival,cores,memory,processing\n1,2\n", "line 2: 2 fields, the header has 4"},
	} {
		_, err := ReadJobsCSV(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("ReadJobsCSV(%q) = %v, want %q", c.in, err, c.msg)
		}
	}
}

func TestJobsJSON(t *testing.T) {
	jobs := []Job{{0, 2, 4, 10}, {3, 1, 0, 5}}
	var buf bytes.Buffer
	if err := WriteJobsJSON(&buf, jobs); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `{"version":1,`) {
		t.Fatalf("encoding %s", buf.String())
	}
	back, err := ReadJobsJSON(&buf)
	if err != nil || len(back) != 2 || back[1] != jobs[1] {
		t.Fatalf("round trip %v %v", back, err)
	}
	for _, c := range []struct {
		in  string
		err error
	}{
		{`{"version":2,"jobs":[]}`, ErrVersion},
		{`{"version":1,"jobs":[{"arrival":0,"cores":1,"memory":0,"processing":0}]}`, ErrValue},
		{`{"version":1,"machines":[{"cores":0}],"jobs":[]}`, ErrValue},
		{`{"version":1,"jobs":[{"arrival":"x"}]}`, ErrFormat},
		{`[1,2]`, ErrFormat},
	} {
		_, err := ReadJobsJSON(strings.NewReader(c.in))
		if !errors.Is(err, c.err) {
			t.Errorf("ReadJobsJSON(%s) = %v, want %v", c.in, err, c.err)
		}
	}
	in, err := ReadInstanceJSON(strings.NewReader(`{"version":1,"machines":[{"cores":4,"memory":8}],"jobs":[{"arrival":0,"cores":1,"memory":0,"processing":2}]}`))
	if err != nil || len(in.Machines) != 1 || in.Machines[0].Memory != 8 {
		t.Fatalf("instance %v %v", in, err)
	}
}

func TestDiscretize(t *testing.T) {
	got, err := Discretize(nil, []Job{{25, 1, 0, 1}, {9, 2, 3, 20}, {0, 1, 0, 21}}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{{2, 1, 0, 1}, {0, 2, 3, 2}, {0, 1, 0, 3}}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Discretize = %v, want %v", got, want)
		}
	}
	if _, err := Discretize(nil, got, 0); !errors.Is(err, ErrSettings) {
		t.Fatal("slot 0 accepted")
	}
}

func TestGenerateDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Jobs = 300
	a, err := Generate(cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(cfg, rand.New(rand.NewPCG(3, 4)))
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("same seed, different jobs")
		}
		if err := a[i].Validate(); err != nil || a[i].Processing > cfg.MaxProc || (i > 0 && a[i].Arrival < a[i-1].Arrival) {
			t.Fatalf("job %d = %+v: %v", i, a[i], err)
		}
	}
}

// TestGenerateLoad checks the load option: the drawn volume over the
// arrival window is the requested utilisation (within one window second),
// bursts give at most Bursts distinct arrival times, and bad settings are
// errors, not panics.
func TestGenerateLoad(t *testing.T) {
	cfg := TestableConfig(1000, 208)
	jobs, err := Generate(cfg, rand.New(rand.NewPCG(1, 4)))
	if err != nil {
		t.Fatal(err)
	}
	vol, last := 0.0, 0
	times := map[int]bool{}
	for _, j := range jobs {
		vol += float64(j.Volume())
		last = max(last, j.Arrival)
		times[j.Arrival] = true
	}
	window := math.Ceil(vol / (cfg.Load * 208))
	if float64(last) >= window {
		t.Fatalf("last arrival %d outside the window %v", last, window)
	}
	if len(times) > cfg.Bursts {
		t.Fatalf("%d arrival times > %d bursts", len(times), cfg.Bursts)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Load = math.NaN() },
		func(c *Config) { c.Load = math.Inf(1) },
		func(c *Config) { c.ClusterCores = 0 },
		func(c *Config) { c.Bursts = -1 },
		func(c *Config) { c.Jobs = MaxGenJobs + 1 },
		func(c *Config) { c.Cores[0] = math.MaxInt },
		func(c *Config) { c.MemPerCoreMax = math.MaxInt },
		func(c *Config) { c.Shape = math.Inf(1) },
		func(c *Config) { c.Load = 1e-300 },
	} {
		c := TestableConfig(10, 208)
		c.Cores = append([]int(nil), c.Cores...)
		bad(&c)
		if _, err := Generate(c, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrSettings) {
			t.Errorf("%+v: err %v, want ErrSettings", c, err)
		}
	}
	if Cluster(-1) != nil || Cluster(MaxClusterMachines+1) != nil {
		t.Error("Cluster out of range not nil")
	}
}
