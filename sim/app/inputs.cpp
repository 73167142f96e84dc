#include "sim/app/inputs.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "sim/app/sweep.hpp"
#include "sim/core/config_spec.hpp"
#include "sim/core/error.hpp"

namespace floorsim::app {

namespace {

bool is_path_key(const std::string& key) {
  return std::find(std::begin(kPathKeys), std::end(kPathKeys), key) != std::end(kPathKeys);
}

void collect(const nlohmann::json& j, const std::filesystem::path& base, const std::string& ptr, std::vector<NamedFile>& out) {
  auto add = [&](const nlohmann::json& v, const std::string& at) {
    if (!v.is_string() || v.get<std::string>().empty()) return;
    const std::filesystem::path p = v.get<std::string>();
    out.push_back({p.is_relative() ? base / p : p, at});
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string at = cfg::child(ptr, it.key());
      if (is_path_key(it.key())) {
        if (it->is_array())
          for (size_t i = 0; i < it->size(); ++i) add((*it)[i], cfg::child(at, i));
        else
          add(*it, at);
      }
      collect(*it, base, at, out);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) collect(j[i], base, cfg::child(ptr, i), out);
  }
}

}  // namespace

std::vector<NamedFile> scenario_files(const nlohmann::json& doc, const std::string& base_dir) {
  std::vector<NamedFile> out;
  collect(doc, base_dir.empty() ? "." : base_dir, "", out);
  return out;
}

std::vector<io::OutInput> scenario_inputs(const nlohmann::json& doc, const std::string& base_dir) {
  std::vector<io::OutInput> out;
  for (auto& f : scenario_files(doc, base_dir)) out.push_back({std::move(f.path), false});
  return out;
}

void check_files_readable(const nlohmann::json& doc, const std::string& base_dir, const std::string& scenario_file) {
  namespace fs = std::filesystem;
  for (const auto& f : scenario_files(doc, base_dir)) {
    const std::string shown = f.path.lexically_normal().string();
    const std::string named = fmt::format("; expected a readable file (named at {}:{})", scenario_file, f.pointer);
    std::error_code ec;
    const fs::file_status st = fs::status(f.path, ec);
    if (ec || !fs::exists(st)) throw InputError(shown, "", "cannot open it (" + (ec ? ec.message() : std::string("No such file or directory")) + ")" + named);
    if (fs::is_directory(st)) {  // manifests may name a folder
      fs::directory_iterator it(f.path, ec);
      if (ec) throw InputError(shown, "", "cannot read the folder (" + ec.message() + ")" + named);
      continue;
    }
    std::ifstream in(f.path, std::ios::binary);
    if (!in || (in.peek(), in.bad())) throw InputError(shown, "", std::string("cannot read it (") + std::strerror(errno) + ")" + named);
  }
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
