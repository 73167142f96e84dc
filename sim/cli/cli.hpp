#pragma once
// Shared plumbing for the verbs of the `floorsim` binary. Each verb lives in its own
// verb_<name>.cpp and is listed once in verbs.hpp.
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

namespace floorsim::cli {

namespace po = boost::program_options;
using Args = std::vector<std::string>;  // arguments after the verb

// A bad command line: reported as `floorsim: VERB: message; see 'floorsim VERB --help'`, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What `floorsim VERB --help` says besides the options; help2man makes the man pages from it,
// so this is the one place a verb is documented on the command line.
struct VerbDoc {
  std::string usage;        // after "floorsim VERB "
  std::string description;  // one paragraph: what the verb answers, what it reads and writes
  // option name -> typed placeholder shown in the help (FILE, DIR, N, S, ...); an option that
  // takes a value and has none here shows Boost's "arg" (tests/cli/help.sh rejects that).
  std::vector<std::pair<std::string, std::string>> placeholders;
  std::vector<std::pair<std::string, std::string>> examples;  // command line, what it shows
};

// Parses `args` for `verb`. Adds --help. Returns false (after printing the help text: usage,
// description, every option with its placeholder and default, examples) when --help was given.
// Throws UsageError otherwise.
bool parse(const Args& args, const std::string& verb, const VerbDoc& doc, const po::options_description& options,
           const po::positional_options_description& positional, po::variables_map& vm);

// The help text of `verb` (what --help prints).
void print_help(std::ostream& os, const std::string& verb, const VerbDoc& doc, const po::options_description& options,
                const po::positional_options_description& positional);

// `text` wrapped at `width` columns, every line after the first indented by `indent` spaces.
std::string wrap(const std::string& text, size_t indent, size_t width = 79);

// Count and positive-number options. Boost reads "-1" into an unsigned or size_t option as
// 4294967295 or 2^64-1, and "nan" or "inf" into a double, and floorsim would go on with that;
// these value types refuse such input as a usage error: `--NAME is 'V'; expected ...`.
//   count_value(&n, lo[, hi])  a whole number in [lo, hi], written as digits only
//   positive_value(&x)         a finite number > 0
namespace detail {
uint64_t parse_count(const std::vector<std::string>& tokens, uint64_t lo, uint64_t hi);
double parse_positive(const std::vector<std::string>& tokens);

template <class T>
class CountValue final : public po::typed_value<T> {
 public:
  CountValue(T* store, T lo, T hi) : po::typed_value<T>(store), lo_(lo), hi_(hi) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override {
    out = static_cast<T>(parse_count(tokens, static_cast<uint64_t>(lo_), static_cast<uint64_t>(hi_)));
  }

 private:
  T lo_, hi_;
};

class PositiveValue final : public po::typed_value<double> {
 public:
  explicit PositiveValue(double* store) : po::typed_value<double>(store) {}
  void xparse(boost::any& out, const std::vector<std::string>& tokens) const override { out = parse_positive(tokens); }
};
}  // namespace detail

template <class T>
po::typed_value<T>* count_value(T* store, T lo, T hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T>);  // lo must be >= 0: counts are written as digits only
  return new detail::CountValue<T>(store, lo, hi);
}
inline po::typed_value<double>* positive_value(double* store) { return new detail::PositiveValue(store); }

// --force, with the one text every writing verb shows (the rules are sim/core/output_guard.hpp's).
void add_force_option(po::options_description& options, bool* force);
// The sentence on what an existing output path becomes, for --out/-o texts.
inline constexpr const char* kDirOutRule =
    "; an existing directory is replaced (atomically) only when floorsim wrote it (it holds .floorsim-output), is empty, or with --force";
inline constexpr const char* kFileOutRule = "; an existing file is replaced (atomically) only with --force; a device, pipe or /dev/stdout is written in place";

// True when stderr is a terminal (progress bars only then).
bool stderr_is_tty();

// --progress WHEN (auto: only when stderr is a terminal and not --quiet; always; never), the
// same on every long verb.
void add_progress_option(po::options_description& options, std::string* when);
// Where the progress line goes: std::cerr or nullptr (off). Throws UsageError on a bad WHEN.
std::ostream* progress_stream(const std::string& when, bool quiet);

}  // namespace floorsim::cli
