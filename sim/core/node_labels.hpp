#pragma once
// Kubernetes node labels (kubernetes.io/docs/concepts/overview/working-with-objects/labels):
// the syntax of a label key and value, and matching a node selector (all of its key = value
// pairs, as a ResourceFlavor's nodeLabels select nodes in Kueue).
#include <map>
#include <string>

namespace floorsim {

using NodeLabels = std::map<std::string, std::string>;

// Kubernetes sets this label on every node to the node's name.
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

// "" when `key` is a valid label key: an optional DNS-subdomain prefix (<= 253 characters,
// lower-case alphanumerics, '-', '.') and '/', then a name of 1..63 alphanumerics, '-', '_', '.'
// starting and ending with an alphanumeric; else what is wrong.
std::string label_key_problem(const std::string& key);
// "" when `value` is a valid label value: empty, or 1..63 characters as a key's name part.
std::string label_value_problem(const std::string& value);

// True when the node (its labels, and `hostname` as kubernetes.io/hostname) has every
// key = value of `selector`.
bool labels_match(const NodeLabels& node, const std::string& hostname, const NodeLabels& selector);

}  // namespace floorsim
