#include "sim/core/cluster.hpp"

#include <fmt/format.h>

#include <cctype>
#include <functional>
#include <map>
#include <stdexcept>

#include "sim/core/job_state.hpp"

namespace floorsim {

std::string_view to_string(JobState s) {
  switch (s) {
    case JobState::Pending: return "PENDING";
    case JobState::Running: return "RUNNING";
    case JobState::Completed: return "COMPLETED";
    case JobState::TimedOut: return "TIMEOUT";
    case JobState::Cancelled: return "CANCELLED";
    case JobState::NodeFail: return "NODE_FAIL";
    case JobState::Unstarted: return "PENDING";
  }
  return "UNKNOWN";
}

ClusterConfig uniform_cluster(const std::string& prefix, size_t count, int32_t gpus_per_node,
                              size_t nodes_per_leaf) {
  ClusterConfig c;
  const int width = count >= 1000 ? static_cast<int>(std::to_string(count).size()) : 3;
  for (size_t i = 0; i < count; ++i) {
    c.node_names.push_back(fmt::format("{}{:0{}}", prefix, i + 1, width));
    c.node_gpus.push_back(gpus_per_node);
    const size_t leaf = nodes_per_leaf ? i / nodes_per_leaf : 0;
    c.node_leaf.push_back(static_cast<uint32_t>(leaf));
    if (c.leaf_names.size() <= leaf) c.leaf_names.push_back(fmt::format("leaf{}", leaf + 1));
  }
  return c;
}

namespace {
// Splits "gpu007" into ("gpu", "007"); names without a numeric suffix get an empty number.
std::pair<std::string, std::string> split_suffix(const std::string& n) {
  size_t i = n.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(n[i - 1]))) --i;
  return {n.substr(0, i), n.substr(i)};
}
}  // namespace

std::string hostlist(const std::vector<std::string>& names) {
  // Group consecutive names sharing a prefix and digit width into ranges, keeping input order
  // of groups (Slurm prints node lists sorted by node index, which is our input order).
  std::string out;
  size_t i = 0;
  while (i < names.size()) {
    auto [pre, num] = split_suffix(names[i]);
    if (num.empty()) {
      out += (out.empty() ? "" : ",") + names[i];
      ++i;
      continue;
    }
    std::vector<std::pair<long, long>> ranges;
    size_t j = i;
    while (j < names.size()) {
      auto [p2, n2] = split_suffix(names[j]);
      if (p2 != pre || n2.size() != num.size() || n2.empty()) break;
      const long v = std::stol(n2);
      if (!ranges.empty() && ranges.back().second + 1 == v) ranges.back().second = v;
      else ranges.push_back({v, v});
      ++j;
    }
    const int w = static_cast<int>(num.size());
    std::string body;
    for (auto [a, b] : ranges) {
      body += body.empty() ? "" : ",";
      body += a == b ? fmt::format("{:0{}}", a, w) : fmt::format("{:0{}}-{:0{}}", a, w, b, w);
    }
    const bool single = ranges.size() == 1 && ranges[0].first == ranges[0].second;
    out += (out.empty() ? "" : ",") + pre + (single ? body : "[" + body + "]");
    i = j;
  }
  return out;
}

namespace {

// One bracketed range list "[1-3,7]" of `list` (`body` between the brackets) into its numbers,
// zero-padded as written.
std::vector<std::string> range_values(const std::string& body, const std::function<void(const char*)>& bad) {
  std::vector<std::string> out;
  if (body.empty()) bad("empty range");
  size_t p = 0;
  while (p <= body.size()) {
    size_t c = body.find(',', p);
    if (c == std::string::npos) c = body.size();
    const std::string item = body.substr(p, c - p);
    const size_t dash = item.find('-');
    const std::string a = item.substr(0, dash);
    const std::string b = dash == std::string::npos ? a : item.substr(dash + 1);
    if (a.empty() || b.empty()) bad("empty range bound");
    for (char ch : a + b)
      if (!std::isdigit(static_cast<unsigned char>(ch))) bad("non-digit in range");
    if (a.size() > 18 || b.size() > 18) bad("range bound too long");
    const long lo = std::stol(a), hi = std::stol(b);
    if (hi < lo) bad("descending range");
    if (hi - lo >= 100000 || out.size() + static_cast<size_t>(hi - lo + 1) > 100000) bad("more than 100,000 names");
    for (long v = lo; v <= hi; ++v) out.push_back(fmt::format("{:0{}}", v, static_cast<int>(a.size())));
    p = c + 1;
  }
  return out;
}

// One host name pattern with any number of ranges ("r1i[0-3]n[0-15]"), appended to `out`.
void expand_name(const std::string& item, std::vector<std::string>& out, const std::function<void(const char*)>& bad) {
  const size_t open = item.find('[');
  if (open == std::string::npos) {
    if (item.find(']') != std::string::npos) bad("']' without '['");
    if (!item.empty()) out.push_back(item);
    return;
  }
  const size_t close = item.find(']', open);
  if (close == std::string::npos) bad("missing ']'");
  const std::string prefix = item.substr(0, open);
  std::vector<std::string> rest;
  expand_name(item.substr(close + 1), rest, bad);
  if (rest.empty()) rest.push_back("");
  // Bounds the whole list, not each range: "n[0-99999,0-99999,...]" must not exhaust memory
  // (100,000 names is far past any real cluster).
  for (const auto& v : range_values(item.substr(open + 1, close - open - 1), bad)) {
    if (out.size() + rest.size() > 100000) bad("more than 100,000 names");
    for (const auto& r : rest) out.push_back(prefix + v + r);
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  auto bad = [&](const char* why) { throw std::invalid_argument(fmt::format("bad hostlist \"{}\": {}", list, why)); };
  // Names are separated by commas outside brackets ("n[1-3,7],gpu01").
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i < list.size() && list[i] == '[') ++depth;
    else if (i < list.size() && list[i] == ']') --depth;
    else if (i == list.size() || (list[i] == ',' && depth == 0)) {
      expand_name(list.substr(start, i - start), out, bad);
      start = i + 1;
    }
  }
  return out;
}

}  // namespace floorsim
