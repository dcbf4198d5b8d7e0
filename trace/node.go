package trace

import (
	"fmt"
	"io"
)

// Node is one machine of the node list: sn, cpu_milli, memory_mib, gpu,
// model (empty for CPU-only nodes).
type Node struct {
	Name      string
	CPUMilli  int64 // CPU in thousandths of a core
	MemoryMiB int64
	GPU       int    // number of GPUs
	Model     string // GPU model (e.g. "V100M16", "T4"); "" if GPU = 0
}

var (
	nodeRequired = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
)

// NodeReader streams the rows of an OpenB node list.
type NodeReader struct {
	t    *table
	seen map[string]int
}

// NewNodeReader reads the header of a node list; file names the source in
// errors. It uses the default Limits.
func NewNodeReader(r io.Reader, file string) (*NodeReader, error) {
	return Limits{}.NewNodeReader(r, file)
}

// NewNodeReader is the package-level NewNodeReader with the limits lim.
func (lim Limits) NewNodeReader(r io.Reader, file string) (*NodeReader, error) {
	t, err := newTable(r, file, nodeRequired, nil, lim)
	if err != nil {
		return nil, err
	}
	return &NodeReader{t: t, seen: map[string]int{}}, nil
}

// Read returns the next node, or io.EOF after the last one. Errors are
// *ParseError values naming file, line and column.
func (nr *NodeReader) Read() (Node, error) {
	t := nr.t
	if err := t.next(); err != nil {
		return Node{}, err
	}
	var n Node
	var err error
	n.Name = t.str("sn")
	if n.Name == "" {
		return Node{}, t.fail("sn", "", "empty node name")
	}
	if prev, dup := nr.seen[n.Name]; dup {
		return Node{}, &ParseError{File: t.file, Line: t.line, Column: "sn", Value: n.Name, Err: fmt.Errorf("%w: first on line %d", ErrDuplicate, prev)}
	}
	nr.seen[n.Name] = t.line
	if n.CPUMilli, err = t.int64Limit("cpu_milli", 0, t.lim.MaxResource, "MaxResource"); err != nil {
		return Node{}, err
	}
	if n.MemoryMiB, err = t.int64Limit("memory_mib", 0, t.lim.MaxResource, "MaxResource"); err != nil {
		return Node{}, err
	}
	g, err := t.int64In("gpu", 0, MaxGPUs)
	if err != nil {
		return Node{}, err
	}
	n.GPU = int(g)
	n.Model = t.str("model")
	if n.GPU > 0 && n.Model == "" {
		return Node{}, t.fail("model", "", "node with %d GPUs has no GPU model", n.GPU)
	}
	return n, nil
}

// ReadNodes reads a whole node list, with the default Limits.
func ReadNodes(r io.Reader, file string) ([]Node, error) { return Limits{}.ReadNodes(r, file) }

// ReadNodes is the package-level ReadNodes with the limits lim.
func (lim Limits) ReadNodes(r io.Reader, file string) ([]Node, error) {
	nr, err := lim.NewNodeReader(r, file)
	if err != nil {
		return nil, err
	}
	var out []Node
	for {
		n, err := nr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}
