// A sweep's result files: which axes changed any result (axis_effects), and results.jsonl
// read back (a torn last line tolerated) and flattened into results.csv.
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/app/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::sweep {

namespace {

void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
  } else if (j.is_number() || j.is_boolean() || j.is_null()) {
    out[prefix] = j;
  }
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string json_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_cell(v.get<std::string>());
  return csv_cell(v.dump());
}

}  // namespace

// ---------------------------------------------------------------- axes that change nothing

namespace {

// What a point's line says about the run: its metrics without the echoes of the scenario's own
// inputs (an axis that sets a class's floor_gpus is echoed in classes.*.floor_gpus whatever it
// does) and without the model's warnings (which quote the inputs), its verdict and its error.
std::string result_key(const json& line) {
  json m = line.value("metrics", json::object());
  if (m.is_object()) {
    for (const char* k : {"output_version", "scenario", "scheduler"}) m.erase(k);
    if (m.contains("classes") && m["classes"].is_object())
      for (auto& [k, c] : m["classes"].items())
        if (c.is_object()) c.erase("floor_gpus");
    const json::json_pointer warnings("/scheduler_report/config/warnings");
    if (m.contains(warnings)) m[warnings] = nullptr;
  }
  return json::array({m, line.value("verdict", json()), line.value("error", json())}).dump();
}

}  // namespace

std::vector<json> axis_effects(const json& axes, const std::vector<json>& lines) {
  std::vector<std::string> keys;
  keys.reserve(lines.size());
  for (const auto& l : lines) keys.push_back(result_key(l));
  std::vector<json> out;
  for (const auto& axis : axes) {
    const std::string name = axis.value("name", std::string());
    // Points grouped by the values of the other axes: within a group only this axis differs.
    std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> groups;  // -> (values, results)
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!lines[i].contains("axes")) continue;
      json others = lines[i]["axes"];
      const std::string v = others.value(name, json()).dump();
      others.erase(name);
      auto& g = groups[others.dump()];
      g.first.insert(v);
      g.second.insert(keys[i]);
    }
    bool compared = false, changed = false;
    for (const auto& [k, g] : groups) {
      compared = compared || g.first.size() > 1;
      changed = changed || g.second.size() > 1;
    }
    out.push_back(compared ? json(changed) : json(nullptr));
  }
  return out;
}

json with_axis_effects(json sj, const std::vector<json>& lines) {
  const std::vector<json> eff = axis_effects(sj["axes"], lines);
  json none = json::array();
  for (size_t a = 0; a < eff.size(); ++a) {
    sj["axes"][a]["changes_results"] = eff[a];
    if (eff[a] == json(false)) none.push_back(sj["axes"][a]["name"]);
  }
  sj["no_effect_axes"] = none;
  return sj;
}

json without_axis_effects(json sj) {
  sj.erase("no_effect_axes");
  if (sj.contains("axes") && sj["axes"].is_array())
    for (auto& a : sj["axes"])
      if (a.is_object()) a.erase("changes_results");
  return sj;
}

// ---------------------------------------------------------------- output files

std::vector<json> read_results(const std::string& path, bool* torn) {
  if (torn) *torn = false;
  std::vector<json> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in) return lines;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0, lineno = 0;
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    ++lineno;
    const bool last = nl == std::string::npos || nl + 1 == text.size();
    const std::string l = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    json j = json::parse(l, nullptr, false);
    const bool ok = nl != std::string::npos && !j.is_discarded() && j.is_object() && j.contains("index") &&
                    j["index"].is_number_unsigned();
    if (!ok) {
      // A kill while appending can only tear the last line; anything else is not ours.
      if (last) {
        if (torn) *torn = true;
        break;
      }
      throw InputError(path, std::to_string(lineno), "not a result line; expected one JSON object with an \"index\" per line");
    }
    lines.push_back(std::move(j));
  }
  return lines;
}

std::string results_csv(const json& sj, const std::vector<json>& lines) {
  std::vector<std::string> axes;
  for (const auto& a : sj["axes"]) axes.push_back(a["name"].get<std::string>());
  std::vector<std::map<std::string, json>> flat(lines.size());
  std::set<std::string> cols;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].contains("metrics")) flatten(lines[i]["metrics"], "", flat[i]);
    if (lines[i].contains("verdict")) flatten(lines[i]["verdict"], "verdict", flat[i]);
    if (lines[i].contains("error")) flat[i]["error"] = lines[i]["error"];
    for (const auto& [k, v] : flat[i]) cols.insert(k);
  }
  std::string out = "index";
  for (const auto& a : axes) out += "," + csv_cell(a);
  for (const auto& c : cols) out += "," + csv_cell(c);
  out += "\n";
  for (size_t i = 0; i < lines.size(); ++i) {
    out += std::to_string(lines[i]["index"].get<size_t>());
    for (const auto& a : axes) out += "," + (lines[i]["axes"].contains(a) ? json_cell(lines[i]["axes"][a]) : std::string());
    for (const auto& c : cols) {
      const auto it = flat[i].find(c);
      out += "," + (it == flat[i].end() ? std::string() : json_cell(it->second));
    }
    out += "\n";
  }
  return out;
}

}  // namespace floorsim::app::sweep
