#pragma once
// Bad input is reported as one line: `FILE:WHERE: what was wrong; what was expected`.
// WHERE is a line number for text formats or a JSON pointer for JSON documents.
#include <stdexcept>
#include <string>

namespace floorsim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string where, std::string what)
      : std::runtime_error(format(file, where, what)),
        file_(std::move(file)), where_(std::move(where)) {}
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }

 private:
  static std::string format(const std::string& f, const std::string& w, const std::string& m) {
    std::string s = f.empty() ? std::string("<input>") : f;
    if (!w.empty()) s += ":" + w;
    return s + ": " + m;
  }
  std::string file_, where_;
};

// Exit codes shared by every verb (DESIGN.md "Output contract").
enum ExitCode : int { kExitOk = 0, kExitCheckFailed = 1, kExitBadInput = 2 };

}  // namespace floorsim
