package openb

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable prints one row per result: pods scheduled, pending at the
// end, given up, refused bindings, time-averaged and peak CPU and GPU
// allocation, time-averaged GPU fragmentation, wall time, and for the
// msched profiles the share of scheduling cycles scored with the pod's own
// port, with the nearest port (bucketed), or not scored.
func WriteTable(w io.Writer, rs []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tscheduled\tpending end\tgave up\trefused\tCPU mean\tGPU mean\tGPU peak\tGPU frag mean\tfrag GPUs mean\twall\town/bucketed/unscored\t")
	for _, r := range rs {
		peak := 0.0
		for _, s := range r.Samples {
			peak = max(peak, s.GPU)
		}
		share := "-"
		if n := r.ScoredOwn + r.ScoredBucketed + r.NotScored; n > 0 {
			share = fmt.Sprintf("%.1f/%.1f/%.1f%%", 100*float64(r.ScoredOwn)/float64(n), 100*float64(r.ScoredBucketed)/float64(n), 100*float64(r.NotScored)/float64(n))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f\t%.1fs\t%s\t\n",
			r.Profile, r.Scheduled, r.Pods, r.PendingEnd, r.GaveUp, r.Violations,
			100*r.Mean(func(s Sample) float64 { return s.CPU }),
			100*r.Mean(func(s Sample) float64 { return s.GPU }), 100*peak,
			100*r.Mean(func(s Sample) float64 { return s.GPUFrag }),
			r.Mean(func(s Sample) float64 { return s.FragGPUs }),
			r.Wall.Seconds(), share)
	}
	tw.Flush()
}

// WriteSeries writes every sample of every result as CSV.
func WriteSeries(w io.Writer, rs []*Result) error {
	if _, err := fmt.Fprintln(w, "profile,time_s,running,pending,cpu,memory,gpu,gpu_frag,idle_gpus,frag_gpus"); err != nil {
		return err
	}
	for _, r := range rs {
		for _, s := range r.Samples {
			if _, err := fmt.Fprintf(w, "%s,%g,%d,%d,%.4f,%.4f,%.4f,%.4f,%.2f,%.2f\n", r.Profile, s.Time, s.Running, s.Pending, s.CPU, s.Memory, s.GPU, s.GPUFrag, s.IdleGPU, s.FragGPUs); err != nil {
				return err
			}
		}
	}
	return nil
}

// FillFractions are the arrival fractions of WriteFillTable.
var FillFractions = []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1.0}

// WriteFillTable prints, per result, the GPU allocation rate and the GPU
// fragmentation (FGD: the share of idle GPUs that the workload's frequent
// GPU shapes cannot use) at the first sample where the arrived share of the
// pod list's GPU request reaches each of FillFractions: the FGD paper's
// view of a cluster filling up (meaningful with Options.Hold). "-" when
// the run never got there.
func WriteFillTable(w io.Writer, rs []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "GPU alloc / frag at arrived\t")
	for _, f := range FillFractions {
		fmt.Fprintf(tw, "%.0f%%\t", 100*f)
	}
	fmt.Fprintln(tw)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t", r.Profile)
		for _, f := range FillFractions {
			cell := "-"
			for _, s := range r.Samples {
				if s.Arrived >= f-1e-9 {
					cell = fmt.Sprintf("%.1f%% / %.1f%%", 100*s.GPU, 100*s.GPUFrag)
					break
				}
			}
			fmt.Fprintf(tw, "%s\t", cell)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
