#include "sim/cli/cli.hpp"

#include <unistd.h>

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

void add_force_option(po::options_description& options, bool* force) {
  options.add_options()("force", po::bool_switch(force)->default_value(false),
                        "replace an existing output that floorsim did not write; never /, the home or working directory, an "
                        "ancestor of them, nor a path that is, holds or lies in an input (off)");
}

bool stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace floorsim::cli
