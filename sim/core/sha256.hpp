#pragma once
// SHA-256 (NIST FIPS 180-4, Secure Hash Standard, section 6.2), for naming inputs in outputs'
// provenance. Written out here because none of the project's dependencies (Boost, fmt,
// nlohmann_json, zlib, ...) provides SHA-256; checked against the FIPS 180-4 example vectors.
#include <string>
#include <string_view>

namespace floorsim::io {

// Lower-case hex digest (64 characters) of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace floorsim::io
