// Warnings: kept in the order raised, each once; a step with no caller sink prints its own only
// when it is done (so a failed step's error line stands alone).
#include <catch2/catch.hpp>

#include "sim/core/warnings.hpp"

using floorsim::WarningScope;
using floorsim::Warnings;

TEST_CASE("warnings keep the order raised and each message once", "[warnings]") {
  Warnings w;
  for (const char* m : {"b.yaml:3: x", "a.conf: y", "b.yaml:3: x", "c: z", "a.conf: y"}) w.add(m);
  CHECK(w.list() == std::vector<std::string>{"b.yaml:3: x", "a.conf: y", "c: z"});
}

TEST_CASE("a step reports to its caller's sink when given one", "[warnings]") {
  Warnings caller;
  caller.add("earlier");
  {
    WarningScope scope(&caller);
    scope.sink().add("the step's");
    scope.sink().add("earlier");
    scope.done();  // the caller prints: nothing here
  }
  CHECK(caller.list() == std::vector<std::string>{"earlier", "the step's"});
}

TEST_CASE("a step without a sink keeps its own", "[warnings]") {
  WarningScope scope(nullptr);
  scope.sink().add("own");
  CHECK(scope.sink().list() == std::vector<std::string>{"own"});
}
