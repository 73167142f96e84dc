// floorsim: one binary, verbs. Exit codes for every verb: 0 ok, 1 a check failed, 2 bad input.
#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/cli/verbs.hpp"

namespace {

void print_usage(std::ostream& os) {
  os << "Usage: floorsim VERB [options]\n"
        "   or: floorsim help [VERB]\n\n"
     << floorsim::cli::wrap(
            "floorsim simulates GPU-cluster scheduler policies (Slurm, Kueue and KAI models, FIFO and backfill "
            "baselines, an idle pool held back for interactive work) and fat-tree fabrics, to answer before a night "
            "is at stake: does every class keep its guaranteed floor, does the VaR batch finish with margin, does "
            "intraday p99 wait hold, what happens when a node or a link fails.",
            0)
     << "\n\nVerbs:\n";
  for (const auto& v : floorsim::cli::kVerbs) {
    std::string name = v.name;
    name.resize(std::max<size_t>(name.size() + 2, 12), ' ');
    os << "  " << name << floorsim::cli::wrap(v.summary, 14) << "\n";
  }
  os << "\n"
     << floorsim::cli::wrap("'floorsim help VERB' (or 'floorsim VERB --help') describes a verb, its options with their "
                            "defaults, and examples. The documentation is in docs/ (installed under share/doc/floorsim).",
                            0)
     << "\n\nOptions:\n  -h, --help      print this help and exit\n      --version   print the version and exit\n"
        "\nExit status:\n  0 ok, 1 a check failed, 2 bad input (one line on stderr, no partial output).\n";
}

const floorsim::cli::Verb* find_verb(const std::string& name) {
  for (const auto& v : floorsim::cli::kVerbs)
    if (name == v.name) return &v;
  return nullptr;
}

int unknown_verb(const std::string& verb) {
  std::cerr << "floorsim: unknown verb '" << verb << "'; expected one of:";
  for (const auto& v : floorsim::cli::kVerbs) std::cerr << " " << v.name;
  std::cerr << "\n";
  return floorsim::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace floorsim;
  if (argc >= 3 && !std::strcmp(argv[1], "help")) {  // floorsim help VERB = floorsim VERB --help
    const cli::Verb* v = find_verb(argv[2]);
    return v ? v->run({"--help"}) : unknown_verb(argv[2]);
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    print_usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? kExitBadInput : kExitOk;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::cout << "floorsim " << io::kVersion << "\n";
    return kExitOk;
  }
  const std::string verb = argv[1];
  if (const cli::Verb* v = find_verb(verb)) {
    cli::Args args(argv + 2, argv + argc);
    try {
      return v->run(args);
    } catch (const cli::UsageError& e) {
      std::cerr << "floorsim: " << verb << ": " << e.what() << "; see 'floorsim " << verb << " --help'\n";
    } catch (const InputError& e) {
      std::cerr << "floorsim: " << e.what() << "\n";
    } catch (const std::exception& e) {
      std::cerr << "floorsim: " << verb << ": " << e.what() << "\n";
    }
    return kExitBadInput;
  }
  return unknown_verb(verb);
}
