#include "sim/core/cluster.hpp"

#include <fmt/format.h>

#include <cctype>
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

std::vector<std::string> expand_hostlist(const std::string& list) {
  std::vector<std::string> out;
  size_t i = 0;
  auto bad = [&](const char* why) { throw std::invalid_argument(fmt::format("bad hostlist \"{}\": {}", list, why)); };
  while (i < list.size()) {
    size_t j = i;
    std::string prefix;
    while (j < list.size() && list[j] != ',' && list[j] != '[') prefix += list[j++];
    if (j < list.size() && list[j] == '[') {
      const size_t close = list.find(']', j);
      if (close == std::string::npos) bad("missing ']'");
      const std::string body = list.substr(j + 1, close - j - 1);
      if (body.empty()) bad("empty range");
      std::string suffix;
      size_t k = close + 1;
      while (k < list.size() && list[k] != ',') suffix += list[k++];
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
        // Bounds the whole list, not each range: "n[0-99999,0-99999,...]" must not exhaust memory
        // (100,000 names is far past any real cluster).
        if (hi - lo >= 100000 || out.size() + static_cast<size_t>(hi - lo + 1) > 100000)
          bad("more than 100,000 names");
        for (long v = lo; v <= hi; ++v)
          out.push_back(prefix + fmt::format("{:0{}}", v, static_cast<int>(a.size())) + suffix);
        p = c + 1;
      }
      i = k + 1;
    } else {
      if (!prefix.empty()) out.push_back(prefix);
      i = j + 1;
    }
  }
  return out;
}

}  // namespace floorsim
