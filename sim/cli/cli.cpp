#include "sim/cli/cli.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <iostream>

namespace floorsim::cli {

bool parse(const Args& args, const std::string& verb, const std::string& usage,
           const po::options_description& options, const po::positional_options_description& positional,
           po::variables_map& vm) {
  po::options_description all("Options (default in parentheses)");
  all.add(options);
  all.add_options()("help,h", "print this help and exit");
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: floorsim " << verb << " " << usage << "\n\n" << all << "\n";
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

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace floorsim::cli
