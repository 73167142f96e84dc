#include "sim/cli/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <set>
#include <sstream>

namespace floorsim::cli {

std::string wrap(const std::string& text, size_t indent, size_t width) {
  std::istringstream words(text);
  std::string out, word;
  size_t col = indent;  // the caller has already written the first line's indent
  bool first = true;
  while (words >> word) {
    if (!first && col + 1 + word.size() > width) {
      out += "\n" + std::string(indent, ' ');
      col = indent;
    } else if (!first) {
      out += ' ';
      ++col;
    }
    out += word;
    col += word.size();
    first = false;
  }
  return out;
}

namespace {

constexpr size_t kDescColumn = 30;
constexpr char kGlue = '\x1f';  // a space that wrap() must not break at: "(default: X)" stays on one line

// One option's line: the flag column, then its description wrapped under kDescColumn.
void print_row(std::ostream& os, const std::string& flags, std::string desc) {
  os << "  " << flags;
  if (flags.size() + 2 + 2 > kDescColumn) {
    os << "\n" << std::string(kDescColumn, ' ');
  } else {
    os << std::string(kDescColumn - 2 - flags.size(), ' ');
  }
  std::string text = wrap(desc, kDescColumn);
  std::replace(text.begin(), text.end(), kGlue, ' ');
  os << text << "\n";
}

std::string placeholder_of(const VerbDoc& doc, const std::string& name) {
  for (const auto& [option, placeholder] : doc.placeholders)
    if (option == name) return placeholder;
  return po::arg;  // Boost's own "arg": tests/cli/help.sh fails on it
}

// Splits Boost's "arg (=default)" into the placeholder part and the default text.
std::pair<std::string, std::string> split_default(const std::string& param) {
  const size_t at = param.find(" (=");
  if (at == std::string::npos) return {param, ""};
  return {param.substr(0, at), param.substr(at + 3, param.size() - at - 4)};
}

std::set<std::string> positional_names(const po::positional_options_description& positional) {
  std::set<std::string> names;
  const unsigned n = std::min(positional.max_total_count(), 16u);
  for (unsigned i = 0; i < n; ++i) names.insert(positional.name_for_position(i));
  return names;
}

}  // namespace

void print_help(std::ostream& os, const std::string& verb, const VerbDoc& doc, const po::options_description& options,
                const po::positional_options_description& positional) {
  os << "Usage: floorsim " << verb << " " << doc.usage << "\n\n";
  os << wrap(doc.description, 0) << "\n";
  const auto positionals = positional_names(positional);
  std::ostringstream args, opts;
  for (const auto& od : options.options()) {
    const std::string name = od->long_name();
    const auto [value, def] = split_default(od->format_parameter());
    const std::string shown = value == po::arg ? placeholder_of(doc, name) : value;
    std::string desc = od->description();
    if (positionals.count(name)) desc += "; also --" + name + " " + shown;
    if (od->semantic()->is_required() && desc.find("required") == std::string::npos) desc += " (required)";
    if (!def.empty()) desc += " (default:" + std::string(1, kGlue) + def + ")";
    if (positionals.count(name)) {
      print_row(args, shown, desc);
      continue;
    }
    const std::string shrt = od->canonical_display_name(po::command_line_style::allow_dash_for_short);
    const bool has_short = shrt.size() == 2 && shrt[0] == '-';
    print_row(opts, (has_short ? shrt + ", " : std::string("    ")) + "--" + name + (shown.empty() ? "" : " " + shown), desc);
  }
  print_row(opts, "-h, --help", "print this help and exit");
  if (!args.str().empty()) os << "\nArguments:\n" << args.str();
  os << "\nOptions:\n" << opts.str();
  if (!doc.examples.empty()) {
    os << "\nExamples:\n";
    for (const auto& [command, what] : doc.examples) os << "  " << command << "\n      " << wrap(what, 6) << "\n";
  }
  os << "\nExit status:\n  0 ok, 1 a check failed, 2 bad input (one line on stderr, no partial output).\n";
}

bool parse(const Args& args, const std::string& verb, const VerbDoc& doc, const po::options_description& options,
           const po::positional_options_description& positional, po::variables_map& vm) {
  po::options_description all;
  all.add(options);
  all.add_options()("help,h", "print this help and exit");
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      print_help(std::cout, verb, doc, options, positional);
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  return true;
}

namespace detail {
namespace {
// A validation error whose text names the option: Boost's store() fills in %canonical_option%.
[[noreturn]] void refuse(const std::string& token, const std::string& expected) {
  po::validation_error e(po::validation_error::invalid_option_value);
  e.m_error_template = "%canonical_option% is '%value%'; expected " + expected;
  e.set_substitute("value", token);
  throw e;
}
}  // namespace

uint64_t parse_count(const std::vector<std::string>& tokens, uint64_t lo, uint64_t hi) {
  const std::string& s = po::validators::get_single_string(tokens);
  const std::string expected = hi == std::numeric_limits<uint64_t>::max() || hi >= (uint64_t{1} << 53)
                                   ? "a whole number >= " + std::to_string(lo)
                                   : "a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  uint64_t x = 0;
  // Digits only: from_chars takes no sign, no space and no exponent, and reports overflow.
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || x < lo || x > hi) refuse(s, expected);
  return x;
}

double parse_positive(const std::vector<std::string>& tokens) {
  const std::string& s = po::validators::get_single_string(tokens);
  double x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x) || x <= 0)
    refuse(s, "a finite number > 0");
  return x;
}
}  // namespace detail

void add_force_option(po::options_description& options, bool* force) {
  options.add_options()("force", po::bool_switch(force)->default_value(false),
                        "replace an existing output that floorsim did not write; never /, the home or working directory, an "
                        "ancestor of them, nor a path that is, holds or lies in an input (off)");
}

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

void add_progress_option(po::options_description& options, std::string* when) {
  options.add_options()("progress", po::value(when)->default_value("auto"),
                        "progress line on stderr: auto (only on a terminal, and not with --quiet), always, never");
}

std::ostream* progress_stream(const std::string& when, bool quiet) {
  if (when != "auto" && when != "always" && when != "never") throw UsageError("--progress is '" + when + "'; expected auto, always or never");
  return when == "always" || (when == "auto" && !quiet && stderr_is_tty()) ? &std::cerr : nullptr;
}

}  // namespace floorsim::cli
