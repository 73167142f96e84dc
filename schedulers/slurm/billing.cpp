// TRESBillingWeights and PriorityFlags=MAX_TRES (slurm.conf(5)); follows assoc_mgr_tres_weighted
// in src/common/assoc_mgr.c and the weight parsing of slurm_get_tres_weight_array
// (src/common/slurm_protocol_api.c).
#include "schedulers/slurm/billing.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

namespace floorsim::slurm {
namespace {
std::string lower_trim(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  s = s.substr(b);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::string parse_billing_weights(const std::string& text, BillingWeights& out, std::vector<std::string>& unmodelled) {
  out = BillingWeights{};
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (lower_trim(item).empty()) {
      if (comma >= text.size()) break;
      continue;
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return fmt::format("TRESBillingWeights item '{}'; expected TRES=weight", item);
    const std::string name = lower_trim(item.substr(0, eq));
    std::string val = lower_trim(item.substr(eq + 1));
    // Mem=0.25G: the weight per GB; slurmctld converts to the weight per MB (the unit of its counts).
    double per_mb = 1;
    if (!val.empty() && std::string("kmgtp").find(val.back()) != std::string::npos) {
      static constexpr double kToMb[] = {1.0 / 1024, 1, 1024, 1024.0 * 1024, 1024.0 * 1024 * 1024};
      per_mb = 1.0 / kToMb[std::string("kmgtp").find(val.back())];
      val.pop_back();
    }
    char* end = nullptr;
    const double w = std::strtod(val.c_str(), &end);
    if (val.empty() || end != val.c_str() + val.size() || !(w >= 0))
      return fmt::format("TRESBillingWeights weight '{}' for {}; expected a number >= 0, optionally with K/M/G/T", item.substr(eq + 1), name);
    if (per_mb != 1 && name != "mem")
      return fmt::format("TRESBillingWeights {}: a unit suffix applies only to Mem; expected a plain number", name);
    out.set = true;
    if (name == "cpu") out.cpu = w;
    else if (name == "node") out.node = w;
    else if (name == "gres/gpu") out.gpu = w;
    else if (name == "mem") out.mem_per_mb = w * per_mb;
    else unmodelled.push_back(name);
    if (comma >= text.size()) break;
  }
  return {};
}

double billable_tres(const BillingWeights& w, bool max_tres, double cpus, double gpus, double nodes, double mem_mb) {
  if (!w.set) return cpus;  // slurm.conf(5): billed against the total number of allocated CPUs
  const double v[] = {cpus * w.cpu, mem_mb * w.mem_per_mb, nodes * w.node, gpus * w.gpu};
  if (max_tres) return *std::max_element(std::begin(v), std::end(v));
  return v[0] + v[1] + v[2] + v[3];
}

}  // namespace floorsim::slurm
