#pragma once
// A wall-clock window of a trace: the jobs of a site's accounting submitted in [from, to), and
// what is done with the jobs the window cuts (submitted before `from`, still queued or running
// then). Wall-clock times are seconds since 1970-01-01 00:00:00 as the log writes them (sacct
// prints the site's local time without a zone; see traces/sacct.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/types.hpp"

namespace floorsim::traces {

// "YYYY-MM-DDTHH:MM:SS" (or a space for T), optionally followed by "Z" or "+HH:MM"/"-HH:MM"
// (then converted to UTC), as seconds since 1970-01-01. Nothing else.
std::optional<double> parse_wall_time(std::string_view s);
// "YYYY-MM-DDTHH:MM:SS" of whole seconds (fractions are dropped).
std::string format_wall_time(double t);

// What select_window() did, by outcome (the counts go to the workload report).
struct WindowCounts {
  size_t in_window = 0;            // submitted in [from, to): kept as they were
  size_t ended_before_from = 0;    // submitted and ended before `from`: dropped
  size_t running_at_from = 0;      // started before `from`, ended after: carried in
  size_t pending_at_from = 0;      // submitted before `from`, started at or after it: carried in
  size_t submitted_after_to = 0;   // submitted at or after `to`: dropped
};

// Keeps the jobs of `w` (submit_s relative to the wall-clock time `t0_wall_s`) that the window
// [from_wall_s, to_wall_s) replays, with times made relative to `from` (t = 0 is `from`):
//  - submitted in the window: kept, times shifted;
//  - running at `from` (recorded start before it, end after it): submitted at t = 0 with the
//    run time and time limit left at `from` (End - from; Timelimit - (from - Start), at least the run time left: a job past its
//    limit then was in its OverTimeLimit grace), their recorded start 0. The model places them afresh: slurmctld had them on nodes already.
//  - queued at `from` (submitted before it, started at or after it, or start unknown):
//    submitted at t = 0; their queue time before `from` (Slurm's age factor) is lost.
//  - the rest dropped. Order (submit_s, id) is kept. Pure.
WindowCounts select_window(Workload& w, double t0_wall_s, double from_wall_s, double to_wall_s);

}  // namespace floorsim::traces
