package ocorp

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/msched/msched/internal/strictjson"
)

// encodingVersion is the schema version of the JSON encodings.
const encodingVersion = 1

// Limits of the decoders (ReadJobsCSV, ReadJobsJSON, ReadInstanceJSON,
// Instance.UnmarshalJSON). Beyond them decoding stops with an error
// wrapping ErrTooLarge; memory stays proportional to the input read.
const (
	MaxEncodedBytes = 1 << 30 // bytes read from one stream
	MaxLineBytes    = 1 << 20 // bytes of one CSV line
	MaxJobs         = 1 << 24 // jobs of one list
	MaxMachines     = 1 << 20 // machines of one instance
)

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
	if len(b) > MaxEncodedBytes {
		return fmt.Errorf("%w: instance of %d bytes > %d", ErrTooLarge, len(b), MaxEncodedBytes)
	}
	var v instanceJSON
	if err := strictjson.Check(b, &v); err != nil { // repeated, miscased, unknown keys
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if err := json.Unmarshal(b, &v); err != nil { // rejects trailing data too
		return fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: version %d", ErrVersion, v.Version)
	}
	if len(v.Jobs) > MaxJobs || len(v.Machines) > MaxMachines {
		return fmt.Errorf("%w: %d jobs (limit %d), %d machines (limit %d)", ErrTooLarge, len(v.Jobs), MaxJobs, len(v.Machines), MaxMachines)
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

// ReadInstanceJSON decodes a versioned instance from r: one JSON object,
// nothing but white space after it, at most MaxEncodedBytes in all.
func ReadInstanceJSON(r io.Reader) (*Instance, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil io.Reader", ErrEmpty)
	}
	lr := &limitReader{r: r, n: MaxEncodedBytes}
	b, err := io.ReadAll(lr)
	if err != nil {
		if errors.Is(err, ErrTooLarge) || errors.Is(err, ErrFormat) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: reading instance: %w", ErrFormat, err)
	}
	var in Instance
	if err := in.UnmarshalJSON(b); err != nil {
		if errors.Is(err, ErrValue) || errors.Is(err, ErrVersion) || errors.Is(err, ErrFormat) || errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return &in, nil
}

// limitReader returns an error wrapping ErrTooLarge once more than n
// bytes are read, and (with line > 0) once a line exceeds line bytes.
type limitReader struct {
	r       io.Reader
	n, line int
	cur     int // bytes since the last newline
	read    int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.read > l.n {
		return 0, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, l.n)
	}
	if len(p) > l.n-l.read+1 {
		p = p[:l.n-l.read+1]
	}
	k, err := l.r.Read(p)
	l.read += k
	if l.read > l.n {
		return k, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, l.n)
	}
	if l.line > 0 {
		for i, c := range p[:k] {
			if c == '\n' {
				l.cur = 0
			} else if l.cur++; l.cur > l.line {
				// Hand over only the bytes before the violation, so that
				// the caller cannot see the line end and parse a cut line.
				l.read = l.n + 1
				return i, fmt.Errorf("%w: a line longer than %d bytes", ErrTooLarge, l.line)
			}
		}
	}
	return k, err
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
// line (1-based, the header is line 1), the column and the value. Every
// row has as many fields as the header (a blank line is skipped); a value
// is a decimal integer, optionally negative (then refused by Validate),
// with white space around it ignored and no '+' sign.
//
// A UTF-8 byte-order mark before the header is skipped; a required column
// named twice is an error. Limits: MaxEncodedBytes in all, MaxLineBytes per
// line and MaxJobs rows (ErrTooLarge).
func ReadJobsCSV(r io.Reader) ([]Job, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil io.Reader", ErrEmpty)
	}
	lr := &limitReader{r: r, n: MaxEncodedBytes, line: MaxLineBytes}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%w: no header", ErrEmpty)
	}
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, fmt.Errorf("line 1: %w", err)
		}
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if len(head) > 0 {
		head[0] = strings.TrimPrefix(head[0], "\ufeff")
	}
	var col [4]int
	for c := range col {
		col[c] = -1
		for i, h := range head {
			if strings.EqualFold(strings.TrimSpace(h), csvColumns[c]) {
				if col[c] >= 0 {
					return nil, fmt.Errorf("%w: line 1: column %q named twice (fields %d and %d)", ErrFormat, csvColumns[c], col[c]+1, i+1)
				}
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
			if errors.Is(err, ErrTooLarge) {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			return nil, fmt.Errorf("%w: line %d: %w", ErrFormat, line, err)
		}
		if len(jobs) >= MaxJobs {
			return nil, fmt.Errorf("%w: line %d: more than %d jobs", ErrTooLarge, line, MaxJobs)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%w: line %d: %d fields, the header has %d", ErrFormat, line, len(rec), len(head))
		}
		var v [4]int
		for c := range col {
			if col[c] >= len(rec) {
				return nil, fmt.Errorf("%w: line %d: missing %s", ErrFormat, line, csvColumns[c])
			}
			s := strings.TrimSpace(rec[col[c]])
			n, err := strconv.Atoi(s)
			if err != nil || strings.HasPrefix(s, "+") {
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
