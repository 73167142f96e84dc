#pragma once
// Two completions of one flow set, figure for figure: what flows.csv and links.csv print
// (finish times, link bytes, the trace's peaks, saturated time, bottlenecks and load segments).
// The event counts differ by design between some pairs; each test checks those itself.
#include <catch2/catch.hpp>

#include "fabric/maxmin.hpp"

namespace floorsim::fabric::test {

inline void check_same_figures(const Completion& x, const CompletionTrace& xt, const Completion& y,
                               const CompletionTrace& yt) {
  CHECK(x.finish_s == y.finish_s);
  CHECK(x.link_bytes == y.link_bytes);
  CHECK(x.makespan_s == y.makespan_s);
  CHECK(xt.link_peak_bytes_per_s == yt.link_peak_bytes_per_s);
  CHECK(xt.link_saturated_s == yt.link_saturated_s);
  CHECK(xt.flow_bottleneck == yt.flow_bottleneck);
  REQUIRE(xt.link_segments.size() == yt.link_segments.size());
  for (size_t i = 0; i < xt.link_segments.size(); ++i) {
    const auto &a = xt.link_segments[i], &b = yt.link_segments[i];
    CHECK((a.link == b.link && a.from_s == b.from_s && a.to_s == b.to_s && a.bytes_per_s == b.bytes_per_s &&
           a.bottleneck == b.bottleneck));
  }
}

}  // namespace floorsim::fabric::test
