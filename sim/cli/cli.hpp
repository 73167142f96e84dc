#pragma once
// Shared plumbing for the verbs of the `floorsim` binary. Each verb lives in its own
// verb_<name>.cpp and is listed once in verbs.hpp.
#include <ostream>
#include <string>
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

// True when stderr is a terminal (progress bars only then).
bool stderr_is_tty();

}  // namespace floorsim::cli
