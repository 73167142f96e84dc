#include "sim/app/inputs.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>

#include "sim/app/sweep.hpp"

namespace floorsim::app {

namespace {

bool is_path_key(const std::string& key) {
  return std::find(std::begin(kPathKeys), std::end(kPathKeys), key) != std::end(kPathKeys);
}

void collect(const nlohmann::json& j, const std::filesystem::path& base, std::vector<io::OutInput>& out) {
  auto add = [&](const nlohmann::json& v) {
    if (!v.is_string() || v.get<std::string>().empty()) return;
    const std::filesystem::path p = v.get<std::string>();
    out.push_back({p.is_relative() ? base / p : p, false});
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (is_path_key(it.key())) {
        if (it->is_array())
          for (const auto& v : *it) add(v);
        else
          add(*it);
      }
      collect(*it, base, out);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) collect(v, base, out);
  }
}

}  // namespace

std::vector<io::OutInput> scenario_inputs(const nlohmann::json& doc, const std::string& base_dir) {
  std::vector<io::OutInput> out;
  collect(doc, base_dir.empty() ? "." : base_dir, out);
  return out;
}

std::vector<io::OutInput> sweep_inputs(const sweep::SweepSpec& s) {
  std::vector<io::OutInput> in = scenario_inputs(s.base_doc, s.base_dir);
  in.push_back({s.file, false});
  if (!s.base_file.empty() && s.base_file.front() != '<') in.push_back({s.base_file, false});  // not the built-in night
  // An axis may swap a file (a trace, a slurm.conf): its values are inputs too.
  for (const auto& a : s.axes) {
    const std::string key = a.pointer.substr(a.pointer.rfind('/') + 1);
    for (const auto& v : a.values)
      for (auto& i : scenario_inputs(nlohmann::json{{key, v}}, s.base_dir)) in.push_back(std::move(i));
  }
  return in;
}

}  // namespace floorsim::app
