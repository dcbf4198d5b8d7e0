package report

import "errors"

// Sentinel errors of Save, matched with errors.Is.
var (
	// ErrSeries: a series has no point, only NaN or ±Inf values, too many
	// points, or no point a log axis can draw.
	ErrSeries = errors.New("report: bad series")
	// ErrSize: a width, height or point count outside its limits.
	ErrSize = errors.New("report: bad size")
)
