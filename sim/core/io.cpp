#include "sim/core/io.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::io {
namespace fs = std::filesystem;

void write_file_atomic(const fs::path& path, const std::string& content) {
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp.string());
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot rename onto " + path.string() + ": " + ec.message());
  }
}

std::string read_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw InputError(path.string(), "", "is a directory; expected a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), "", "cannot read file; expected a readable file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

AtomicDir::AtomicDir(fs::path final_dir) : final_(std::move(final_dir)) {
  if (final_.filename().empty()) final_ = final_.parent_path();  // "out/" -> "out"
  fs::path parent = final_.parent_path();
  if (parent.empty()) parent = ".";
  std::error_code ec;
  fs::create_directories(parent, ec);
  tmp_ = parent / ("." + final_.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp_, ec);
  if (!fs::create_directory(tmp_, ec) || ec)
    throw std::runtime_error("cannot create output directory " + tmp_.string());
}

AtomicDir::~AtomicDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

void AtomicDir::commit() {
  std::error_code ec;
  if (fs::exists(final_, ec)) fs::remove_all(final_, ec);
  fs::rename(tmp_, final_, ec);
  if (ec) throw std::runtime_error("cannot rename output onto " + final_.string() + ": " + ec.message());
  committed_ = true;
}

void check_utf8(std::string_view text, const std::string& file) {
  size_t line = 1, line_start = 0;
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      if (c == '\n') ++line, line_start = i + 1;
      ++i;
      continue;
    }
    // Length and the allowed range of the second byte (no overlongs, surrogates or > U+10FFFF).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    bool ok = len > 0 && i + len <= n && b[i + 1] >= lo && b[i + 1] <= hi;
    for (size_t k = 2; ok && k < len; ++k) ok = b[i + k] >= 0x80 && b[i + k] <= 0xBF;
    if (!ok)
      throw InputError(file, std::to_string(line),
                       fmt::format("byte 0x{:02X} at column {} is not UTF-8; expected UTF-8 text", c, i - line_start + 1));
    i += len;
  }
}

}  // namespace floorsim::io
