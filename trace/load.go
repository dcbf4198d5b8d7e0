package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File names of the OpenB trace (cluster-trace-gpu-v2023).
const (
	NodeFile       = "openb_node_list_all_node.csv"
	DefaultPodFile = "openb_pod_list_default.csv"
	// DirEnv names the environment variable that overrides DefaultDir.
	DirEnv = "MSCHED_TRACE"
)

// Trace is a loaded node list and pod list.
type Trace struct {
	Dir     string
	PodFile string
	Nodes   []Node
	Pods    []Pod
}

// Load reads dir/openb_node_list_all_node.csv and dir/podFile
// (DefaultPodFile when empty). A missing folder or file gives an error
// wrapping ErrNotFound. It uses the default Limits.
func Load(dir, podFile string) (*Trace, error) { return Limits{}.Load(dir, podFile) }

// Load is the package-level Load with the limits lim.
func (lim Limits) Load(dir, podFile string) (*Trace, error) {
	if podFile == "" {
		podFile = DefaultPodFile
	}
	tr := &Trace{Dir: dir, PodFile: podFile}
	var err error
	if tr.Nodes, err = readFile(filepath.Join(dir, NodeFile), lim.ReadNodes); err != nil {
		return nil, err
	}
	if tr.Pods, err = readFile(filepath.Join(dir, podFile), lim.ReadPods); err != nil {
		return nil, err
	}
	if len(tr.Nodes) == 0 {
		return nil, fmt.Errorf("%w: no nodes in %s", ErrEmpty, NodeFile)
	}
	if len(tr.Pods) == 0 {
		return nil, fmt.Errorf("%w: no pods in %s", ErrEmpty, podFile)
	}
	return tr, nil
}

func readFile[T any](path string, read func(r io.Reader, name string) ([]T, error)) ([]T, error) {
	// A device or a pipe (/dev/zero, a FIFO) would be read forever or
	// block, even in Open: check before opening, and again after.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", ErrValue, path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (get the OpenB files of github.com/alibaba/clusterdata, cluster-trace-gpu-v2023, into that folder)", ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	} else if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", ErrValue, path, st.Mode().Type())
	}
	return read(f, filepath.Base(path))
}

// DefaultDir returns where the trace is expected: $MSCHED_TRACE if set,
// else ../shared/traces/alibaba-openb-2023 relative to the root of the
// msched repository (the nearest folder above the working directory that
// holds a go.mod of module github.com/msched/msched). It returns an error
// wrapping ErrNotFound when that folder does not exist.
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return checkDir(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("trace: %w", err)
	}
	for d := wd; ; {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/msched/msched\n") {
			return checkDir(filepath.Join(d, "..", "shared", "traces", "alibaba-openb-2023"))
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("%w: no msched repository above %s; set %s or pass the folder", ErrNotFound, wd, DirEnv)
		}
		d = up
	}
}

func checkDir(d string) (string, error) {
	d = filepath.Clean(d)
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return d, fmt.Errorf("%w: trace folder %s (get the OpenB files of github.com/alibaba/clusterdata, cluster-trace-gpu-v2023)", ErrNotFound, d)
	}
	return d, nil
}
