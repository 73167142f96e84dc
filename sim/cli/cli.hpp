#pragma once
// Shared plumbing for the verbs of the `floorsim` binary. Each verb lives in its own
// verb_<name>.cpp and is listed once in verbs.hpp.
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace floorsim::cli {

namespace po = boost::program_options;
using Args = std::vector<std::string>;  // arguments after the verb

// A bad command line: reported as `floorsim: VERB: message; see 'floorsim VERB --help'`, exit 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses `args` for `verb`. Adds --help. Returns false (after printing the help text, which
// lists every option with its default) when --help was given. Throws UsageError otherwise.
bool parse(const Args& args, const std::string& verb, const std::string& usage,
           const po::options_description& options, const po::positional_options_description& positional,
           po::variables_map& vm);

// --force, with the one text every writing verb shows (the rules are sim/core/output_guard.hpp's).
void add_force_option(po::options_description& options, bool* force);
// The sentence on what an existing output path becomes, for --out/-o texts.
inline constexpr const char* kDirOutRule =
    "; an existing directory is replaced (atomically) only when floorsim wrote it (it holds .floorsim-output), is empty, or with --force";
inline constexpr const char* kFileOutRule = "; an existing file is replaced (atomically) only with --force; a device, pipe or /dev/stdout is written in place";

// True when stderr is a terminal (progress bars only then).
bool stderr_is_tty();

}  // namespace floorsim::cli
