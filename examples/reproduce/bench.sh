#!/bin/sh
# bench.sh writes docs/bench.txt: the per-slot cost of each family's policy
# and baselines, from the packages' own benchmarks, which
# `go run ./examples/reproduce` quotes in docs/CHOOSING.md ("What it
# costs"). Run it from the repository root on a machine as quiet as you
# can find; the file records each command, the date and the load
# average, which the guide quotes with the numbers. About two minutes.
set -eu
out=${1:-docs/bench.txt}
tmp=$(mktemp)
{
	echo "# written by examples/reproduce/bench.sh on $(date -u '+%Y-%m-%d %H:%M UTC'); load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown); $(nproc 2>/dev/null || echo '?') CPUs"
	run() { # run BENCHTIME PATTERN PACKAGE
		echo "# command: go test -run '^\$' -benchmem -benchtime $1 -bench '$2' $3"
		go test -run '^$' -benchmem -benchtime "$1" -bench "$2" "$3"
	}
	run 20x 'BenchmarkSlot$' ./ogasched
	run 3x 'BenchmarkGangSlot/^servers=48$/' ./ogasched
	run 20x 'BenchmarkPolicySlot|BenchmarkModeSlot/E=(52|187)/' ./esdp
	run 10x 'BenchmarkSlot/^policy=(OCORP|OCORP\+M|SVF)$/^n=(1000|10000)$/^m=100$' ./ocorp
	run 5x 'BenchmarkSlot/^policy=OCORP\+$/^n=1000$/^m=100$' ./ocorp
	run 20x 'BenchmarkRollingDecide|BenchmarkWaterFill' ./onsocmax
	run 10x 'ESDPBaselinesSlot|FirstFitSlot|TetrisSlot|GangBaselineSlot' ./baselines
} > "$tmp"
mv "$tmp" "$out"
