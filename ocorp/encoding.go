package ocorp

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// encodingVersion is the schema version of the JSON encodings.
const encodingVersion = 1

// Instance is a job list with (optionally) the cluster it runs on. It
// encodes as {"version":1,"machines":[{"cores":C,"memory":M}],
// "jobs":[{"arrival":a,"cores":d,"memory":m,"processing":p}]}.
type Instance struct {
	Machines []Machine
	Jobs     []Job
}

type instanceJSON struct {
	Version  int       `json:"version"`
	Machines []Machine `json:"machines,omitempty"`
	Jobs     []Job     `json:"jobs"`
}

// MarshalJSON encodes the instance with version 1.
func (in *Instance) MarshalJSON() ([]byte, error) {
	return json.Marshal(instanceJSON{encodingVersion, in.Machines, in.Jobs})
}

// UnmarshalJSON decodes and validates an instance. Machines may be absent
// (a job list only); if present each is validated.
func (in *Instance) UnmarshalJSON(b []byte) error {
	var v instanceJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: version %d", ErrVersion, v.Version)
	}
	if err := ValidateJobs(v.Jobs); err != nil {
		return err
	}
	for i, m := range v.Machines {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("machine %d: %w", i, err)
		}
	}
	in.Machines, in.Jobs = v.Machines, v.Jobs
	return nil
}

// ReadJobsJSON decodes a versioned instance (see Instance) from r and
// returns its jobs.
func ReadJobsJSON(r io.Reader) ([]Job, error) {
	in, err := ReadInstanceJSON(r)
	if err != nil {
		return nil, err
	}
	return in.Jobs, nil
}

// ReadInstanceJSON decodes a versioned instance from r.
func ReadInstanceJSON(r io.Reader) (*Instance, error) {
	var in Instance
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		if errors.Is(err, ErrValue) || errors.Is(err, ErrVersion) || errors.Is(err, ErrFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return &in, nil
}

// WriteJobsJSON writes jobs as a version-1 instance without machines.
func WriteJobsJSON(w io.Writer, jobs []Job) error {
	return json.NewEncoder(w).Encode(&Instance{Jobs: jobs})
}

// csvColumns are the required CSV header names.
var csvColumns = [4]string{"arrival", "cores", "memory", "processing"}

// ReadJobsCSV reads a job list with a header row naming the columns
// arrival, cores, memory and processing (any order, case-insensitive,
// other columns ignored) and one job per row, integers. Errors name the
// line (1-based, the header is line 1), the column and the value.
func ReadJobsCSV(r io.Reader) ([]Job, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: no header", ErrEmpty)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	var col [4]int
	for c := range col {
		col[c] = -1
		for i, h := range head {
			if strings.EqualFold(strings.TrimSpace(h), csvColumns[c]) {
				col[c] = i
			}
		}
		if col[c] < 0 {
			return nil, fmt.Errorf("%w: line 1: missing column %q", ErrFormat, csvColumns[c])
		}
	}
	var jobs []Job
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, line, err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		var v [4]int
		for c := range col {
			if col[c] >= len(rec) {
				return nil, fmt.Errorf("%w: line %d: missing %s", ErrFormat, line, csvColumns[c])
			}
			s := strings.TrimSpace(rec[col[c]])
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, fmt.Errorf("%w: line %d: %s = %q is not an integer", ErrValue, line, csvColumns[c], s)
			}
			v[c] = n
		}
		j := Job{Arrival: v[0], Cores: v[1], Memory: v[2], Processing: v[3]}
		if err := j.Validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// WriteJobsCSV writes jobs with the header arrival,cores,memory,processing.
func WriteJobsCSV(w io.Writer, jobs []Job) error {
	cw := csv.NewWriter(w)
	cw.Write(csvColumns[:])
	for _, j := range jobs {
		cw.Write([]string{strconv.Itoa(j.Arrival), strconv.Itoa(j.Cores), strconv.Itoa(j.Memory), strconv.Itoa(j.Processing)})
	}
	cw.Flush()
	return cw.Error()
}
