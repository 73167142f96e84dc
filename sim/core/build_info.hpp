#pragma once
// What a build is: the commit it was configured from (sim/CMakeLists.txt: `git describe
// --always --dirty` at configure time, "unknown" outside a git checkout). The version is
// io::kVersion (output_guard.hpp).
namespace floorsim::io {

extern const char* const kCommit;

}  // namespace floorsim::io
