package ocorp

import (
	"fmt"

	"github.com/msched/msched/internal/checked"
)

// MapReduceJob is a job of Section V: MapTasks parallel map tasks of
// MapCores cores and MapTime slots each, then ReduceTasks reduce tasks of
// ReduceCores cores and ReduceTime slots, which start only after every map
// task has finished (43). Memory is per phase (0 for CPU only).
type MapReduceJob struct {
	Arrival                              int
	MapTasks, MapCores, MapTime          int
	ReduceTasks, ReduceCores, ReduceTime int
	Memory                               int
}

// Dummies returns the two dummy jobs of Section V: the map job
// (n^m d^m cores, p^m slots) and the reduce job (n^r d^r cores, p^r slots),
// both with the job's arrival (their weights (5) count from a_j).
func (m MapReduceJob) Dummies() (mapJob, reduceJob Job, err error) {
	if _, ok := checked.Mul(m.MapTasks, m.MapCores); !ok && m.MapTasks > 0 && m.MapCores > 0 {
		return mapJob, reduceJob, fmt.Errorf("%w: map tasks %d * cores %d overflows int", ErrValue, m.MapTasks, m.MapCores)
	}
	if _, ok := checked.Mul(m.ReduceTasks, m.ReduceCores); !ok && m.ReduceTasks > 0 && m.ReduceCores > 0 {
		return mapJob, reduceJob, fmt.Errorf("%w: reduce tasks %d * cores %d overflows int", ErrValue, m.ReduceTasks, m.ReduceCores)
	}
	mapJob = Job{Arrival: m.Arrival, Cores: m.MapTasks * m.MapCores, Memory: m.Memory, Processing: m.MapTime}
	reduceJob = Job{Arrival: m.Arrival, Cores: m.ReduceTasks * m.ReduceCores, Memory: m.Memory, Processing: m.ReduceTime}
	if m.MapTasks < 1 || m.ReduceTasks < 1 {
		return mapJob, reduceJob, fmt.Errorf("%w: map tasks %d, reduce tasks %d", ErrValue, m.MapTasks, m.ReduceTasks)
	}
	if err := mapJob.Validate(); err != nil {
		return mapJob, reduceJob, fmt.Errorf("map: %w", err)
	}
	if err := reduceJob.Validate(); err != nil {
		return mapJob, reduceJob, fmt.Errorf("reduce: %w", err)
	}
	return mapJob, reduceJob, nil
}

// MapReduceResult is the outcome of RunMapReduce: the run over the 2N
// dummy jobs (map job of job j at index 2j, reduce job at 2j+1) and the
// flowtime of every MapReduce job (reduce completion - a_j).
type MapReduceResult struct {
	Run         *Series
	JobFlowtime []int
	ExactLk     float64 // l_k norm of JobFlowtime
	LowerBound  []int   // p^m + p^r per job
}

// RunMapReduce simulates the MapReduce extension: every job becomes a map
// dummy job and a reduce dummy job; the reduce job is visible to the
// policy only from the slot after its map job completes, so (43) holds and
// any policy of the package schedules the dummies as ordinary jobs.
func RunMapReduce(jobs []MapReduceJob, ms []Machine, pol OnlinePolicy, s RunSettings) (*MapReduceResult, error) {
	if pol == nil {
		return nil, fmt.Errorf("%w: nil policy", ErrSettings)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: no jobs", ErrEmpty)
	}
	dummies := make([]Job, 2*len(jobs))
	dep := make([]int, 2*len(jobs))
	for j, m := range jobs {
		mj, rj, err := m.Dummies()
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", j, err)
		}
		dummies[2*j], dummies[2*j+1] = mj, rj
		dep[2*j], dep[2*j+1] = -1, 2*j
	}
	r, err := run(dummies, dep, ms, pol, s)
	if err != nil {
		return nil, err
	}
	out := &MapReduceResult{Run: r, JobFlowtime: make([]int, len(jobs)), LowerBound: make([]int, len(jobs))}
	f := make([]float64, len(jobs))
	for j, m := range jobs {
		out.JobFlowtime[j] = r.Completion[2*j+1] - m.Arrival
		out.LowerBound[j] = m.MapTime + m.ReduceTime
		f[j] = float64(out.JobFlowtime[j])
	}
	out.ExactLk = LkNorm(f, r.K)
	return out, nil
}
