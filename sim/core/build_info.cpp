#include "sim/core/build_info.hpp"

namespace floorsim::io {

const char* const kCommit = FLOORSIM_COMMIT;

}  // namespace floorsim::io
