// Command gangbench writes the gang knapsack instances of the HiGHS
// comparison (issue 29) as JSON, solves them with the msched gang oracle
// (esdp.GangOracle, each mode) and records times, values and certified
// bounds, for scripts/gang_highs.py to compare with HiGHS on the same
// instances:
//
//	go run ./scripts/gangbench -out /tmp/gangbench
//	/usr/bin/python3 scripts/gang_highs.py /tmp/gangbench
//
// At equal time limits (the oracle's GangOracleSettings.TimeLimit and
// HiGHS's time_limit, L seconds; one run per instance):
//
//	go run ./scripts/gangbench -out /tmp/gb10 -modes exact -runs 1 -time 10s -only dlrm-median,dlrm-busiest,dlrm-all
//	/usr/bin/python3 scripts/gang_highs.py /tmp/gb10 --time-limit 10
//
// Every DLRM slot with an arrival (739), each solved by GangExact and by
// HiGHS at the same time limit L seconds (sweep.json and the model, written
// once as dlrm-all.json; HiGHS gets each slot as the model with the absent
// apps' variables fixed to 0):
//
//	go run ./scripts/gangbench -out /tmp/sweep -sweep Ls
//	/usr/bin/python3 scripts/gang_highs.py /tmp/sweep --sweep --time-limit L
//
// -sweep-min-components N sweeps only the slots whose arrived apps have
// more than N components (with N = esdp.AutoSearchComponents = 128, the
// 103 slots where the time-limited phase runs past the search and its
// repacking and reselection can act; on the others the search has the
// whole limit). -bound-share S sets the oracle's BoundShare (GangExact
// keeps the last share S of the limit for its bound; with -time or
// -sweep).
// gang_highs.py --sweep --reuse F takes HiGHS's results from an earlier
// run's highs-sweep.json F (same slots and limit) to compare another
// msched build. -only dlrm-slot-T solves one slot T of the sweep;
// -medium N writes medium-0 .. medium-(N-1) (the comparison uses the
// first ten; medium-10 .. -59 are the held-out set the oracle's settings
// were chosen on); -cpuprofile writes a CPU profile.
//
// With -policy N it instead runs ESDP-gang N slots on the DLRM trace with
// the oracle of -modes (one mode), -nodes, -iters and -time, and prints
// how many slots stopped at the oracle's budget (Decide fails with
// esdp.ErrNodeLimit) and the time per slot:
//
//	go run ./scripts/gangbench -policy 900 -modes exact
//
// Instances: 10 medium random instances (esdp.GenerateGang with 16 job
// types, DefaultGangConfig otherwise: 40 servers, K = 3, 2-4 components,
// arrival probability 0.9; channel values uniform in [0, 1]) and three
// slots of the DLRM trace as trace.DLRMGangInstance maps it with its
// defaults (156 apps, up to 8 components each, 32 CN + 16 HN servers,
// K = 6): the median slot (by the number of apps arriving, among the slots
// with an arrival), the busiest slot, and every app arrived. The trace
// has no rewards: channel values are uniform in [0.1, 1] (the ESDP papers'
// range of means), seeded. The trace folder is found by
// trace.DefaultDLRMDir ($MSCHED_DLRM_TRACE); without it only the medium
// instances are written.
//
// Not part of the msched API. CI runs only main_test.go, which checks on two
// medium instances that the JSON written for HiGHS describes the same
// problem the oracle solved, and that the recorded result is feasible with
// its value under its bound, and (without -short, TestMediumProofs) that
// GangExact proves at least 8 of the ten medium instances, with HiGHS's
// optima; the comparison itself is run by hand.
package main
