package ogasched

// Limits on what a user, a file or a trace may declare. They are checked
// before anything is allocated, with overflow-safe arithmetic
// (internal/checked), so that a hostile or mistaken size becomes an error
// naming the field, its value and the limit, never a panic, an
// out-of-memory abort or a hang. The defaults fit a 24 GiB machine with room
// to spare: a Policy at MaxDim holds about 8.5 vectors of MaxDim words
// (2.4 GiB: y, z, gradient, bounds in two layouts, the permutation, and
// the utility tables of its batched gradient).
const (
	// MaxK is the largest number of resource types K.
	MaxK = 1 << 10
	// MaxDim is the largest decision dimension |E| K.
	MaxDim = 1 << 25
	// MaxGenerateCells bounds Ports * Nodes in Generate (it draws every
	// port-node pair).
	MaxGenerateCells = 1 << 26
	// MaxTraceCells bounds Ports * T of a trace drawn by BernoulliTrace or
	// decoded from JSON, and the expanded ports of Expand.
	MaxTraceCells = 1 << 28
	// MaxVertices bounds the ports and nodes a decoded graph may declare
	// (checked before the graph allocates anything) and Trace.Ports.
	MaxVertices = 1 << 24
	// MaxWorkers bounds Settings.Workers and RunSettings.Workers.
	MaxWorkers = 1 << 10
	// MaxValue bounds every demand, capacity, arrival count and utility
	// derivative bound f'(0) (13): 1e15. With products of two such numbers
	// below 1e30 and sums over at most MaxDim terms, rewards, gradients and
	// gradient steps stay far from overflow.
	MaxValue = 1e15
)
