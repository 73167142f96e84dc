// floorsim: one binary, verbs. Exit codes for every verb: 0 ok, 1 a check failed, 2 bad input.
#include <cstring>
#include <exception>
#include <iostream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/output_guard.hpp"
#include "sim/cli/verbs.hpp"

namespace {

void print_usage(std::ostream& os) {
  os << "usage: floorsim VERB [options]   (floorsim VERB --help lists every option with its default)\n\nverbs:\n";
  for (const auto& v : floorsim::cli::kVerbs) {
    std::string name = v.name;
    name.resize(std::max<size_t>(name.size() + 2, 12), ' ');
    os << "  " << name << v.summary << "\n";
  }
  os << "\nexit codes: 0 ok, 1 a check failed, 2 bad input\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace floorsim;
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
  for (const auto& v : cli::kVerbs) {
    if (verb != v.name) continue;
    cli::Args args(argv + 2, argv + argc);
    try {
      return v.run(args);
    } catch (const cli::UsageError& e) {
      std::cerr << "floorsim: " << verb << ": " << e.what() << "; see 'floorsim " << verb << " --help'\n";
    } catch (const InputError& e) {
      std::cerr << "floorsim: " << e.what() << "\n";
    } catch (const std::exception& e) {
      std::cerr << "floorsim: " << verb << ": " << e.what() << "\n";
    }
    return kExitBadInput;
  }
  std::cerr << "floorsim: unknown verb '" << verb << "'; expected one of:";
  for (const auto& v : cli::kVerbs) std::cerr << " " << v.name;
  std::cerr << "\n";
  return kExitBadInput;
}
