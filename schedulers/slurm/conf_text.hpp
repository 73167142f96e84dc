#pragma once
// The text and value syntax shared by the Slurm configuration readers: slurm.conf(5),
// topology.conf(5) and gres.conf(5) lines, and the value forms of slurm.conf(5) and sacctmgr(1).
// Every reader error is an InputError naming the file and line (`bad`).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "schedulers/slurm/config.hpp"

namespace floorsim::slurm::conf {

std::string lower(std::string s);
std::string trim(const std::string& s);
std::string unquote(const std::string& s);  // one pair of surrounding ' or " removed
// Splits on `sep` outside single or double quotes.
std::vector<std::string> split_outside_quotes(const std::string& s, char sep);
// The quote left open at the end of `s` (0 when every quote closes).
char open_quote(const std::string& s);

// Logical lines of a slurm.conf-style file: comments removed, backslash continuations joined.
struct Line {
  int number;  // first physical line
  std::string text;
};
std::vector<Line> logical_lines(const std::string& text);
// "Key=Value Key2="quoted value"" -> pairs (keys as written).
std::vector<std::pair<std::string, std::string>> kv_tokens(const std::string& line, const std::string& file, int ln);

[[noreturn]] void bad(const std::string& file, int ln, const std::string& msg);

// Values of `key` read at file:ln; each throws (via bad) on a value it cannot read.
int64_t to_int(const std::string& v, const std::string& key, const std::string& file, int ln);
double to_num(const std::string& v, const std::string& key, const std::string& file, int ln);
double to_bounded(const std::string& v, const std::string& key, double lo, double hi, const std::string& file, int ln);
double to_weight(const std::string& v, const std::string& key, const std::string& file, int ln);  // PriorityWeight*
double to_time(const std::string& v, const std::string& key, const std::string& file, int ln);    // Slurm time, seconds
bool to_bool(const std::string& v, const std::string& key, const std::string& file, int ln);
PreemptMode to_mode(const std::string& v, const std::string& key, const std::string& file, int ln);
Tres to_tres(const std::string& v, const std::string& key, const std::string& file, int ln);
int64_t to_limit(const std::string& v, const std::string& key, const std::string& file, int ln);  // -1: no limit
std::vector<std::string> to_list(const std::string& v);                                           // comma list
std::vector<std::string> to_nodes(const std::string& v, const std::string& key, const std::string& file, int ln);  // ALL: {}
int32_t to_count(const std::string& v, const std::string& key, const std::string& file, int ln);  // [0, 2^31)

}  // namespace floorsim::slurm::conf
