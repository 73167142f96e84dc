#pragma once
// The verbs of `floorsim`, in the order `floorsim --help` lists them. One line per verb.
#include "sim/cli/cli.hpp"

namespace floorsim::cli {

int verb_run(const Args& args);       // sim/cli/verb_run.cpp
int verb_validate(const Args& args);  // sim/cli/verb_run.cpp
int verb_schema(const Args& args);    // sim/cli/verb_run.cpp

struct Verb {
  const char* name;
  const char* summary;
  int (*run)(const Args&);
};

inline const Verb kVerbs[] = {
    {"run", "simulate a scenario and write metrics.json, jobs.csv, timeline.csv", verb_run},
    {"validate", "check a scenario file and print it with every default filled in", verb_validate},
    {"schema", "print the JSON Schema of the scenario format", verb_schema},
};

}  // namespace floorsim::cli
