#pragma once
// Warnings: what floorsim read but cannot model, and what it assumes instead. Whoever asked for
// the work keeps them, in the order raised and each once: `run` prints them, `sweep` prints each
// once for all its points, `lint` reports them as findings. Code that raises one never prints it.
#include <string>
#include <vector>

namespace floorsim {

class Warnings {
 public:
  // `message` is "FILE:WHERE: what; what is assumed" (no "floorsim: warning: " prefix). A message
  // already kept is not kept again: a sweep's points and a model's passes raise the same ones.
  void add(std::string message);
  const std::vector<std::string>& list() const { return list_; }
  bool empty() const { return list_.empty(); }
  // One "floorsim: warning: MESSAGE" line per message on stderr, in the order kept.
  void print() const;

 private:
  std::vector<std::string> list_;
};

// The sink a step reports to: the caller's, or, when the caller passed none, one whose messages
// are printed when the step is done (so a step that fails prints its error line alone).
class WarningScope {
 public:
  explicit WarningScope(Warnings* caller) : sink_(caller ? caller : &own_) {}
  Warnings& sink() { return *sink_; }
  // Prints the step's own messages; call once the step succeeded.
  void done() const {
    if (sink_ == &own_) own_.print();
  }

 private:
  Warnings own_;
  Warnings* sink_;
};

}  // namespace floorsim
