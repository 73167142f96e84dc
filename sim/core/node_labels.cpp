// Node label syntax and node selectors (Kubernetes docs: Labels and Selectors, Syntax and
// character set).
#include "sim/core/node_labels.hpp"

#include <cctype>

namespace floorsim {
namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A name segment: 1..63 of [A-Za-z0-9-_.], alphanumeric at both ends.
std::string name_problem(const std::string& s, const char* what) {
  if (s.empty()) return std::string(what) + " is empty";
  if (s.size() > 63) return std::string(what) + " is longer than 63 characters";
  if (!alnum(s.front()) || !alnum(s.back())) return std::string(what) + " must start and end with a letter or digit";
  for (char c : s)
    if (!alnum(c) && c != '-' && c != '_' && c != '.')
      return std::string(what) + " has '" + c + "'";
  return "";
}

// A DNS subdomain: lower-case alphanumerics, '-', '.', <= 253, alphanumeric at both ends.
std::string prefix_problem(const std::string& s) {
  if (s.empty()) return "the prefix before '/' is empty";
  if (s.size() > 253) return "the prefix is longer than 253 characters";
  if (!alnum(s.front()) || !alnum(s.back())) return "the prefix must start and end with a letter or digit";
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'))
      return std::string("the prefix has '") + c + "' (a DNS subdomain: lower-case letters, digits, '-', '.')";
  return "";
}

}  // namespace

std::string label_key_problem(const std::string& key) {
  const size_t slash = key.find('/');
  if (slash == std::string::npos) return name_problem(key, "the name");
  if (key.find('/', slash + 1) != std::string::npos) return "more than one '/'";
  if (std::string p = prefix_problem(key.substr(0, slash)); !p.empty()) return p;
  return name_problem(key.substr(slash + 1), "the name after '/'");
}

std::string label_value_problem(const std::string& value) {
  return value.empty() ? "" : name_problem(value, "the value");
}

bool labels_match(const NodeLabels& node, const std::string& hostname, const NodeLabels& selector) {
  for (const auto& [k, v] : selector) {
    auto it = node.find(k);
    if (it != node.end()) {
      if (it->second != v) return false;
    } else if (!(k == kHostnameLabel && v == hostname)) {
      return false;
    }
  }
  return true;
}

}  // namespace floorsim
