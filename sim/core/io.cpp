#include "sim/core/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::io {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_write(const std::string& shown, int err) {
  throw std::runtime_error("cannot write " + shown + ": " + std::generic_category().message(err));
}

// Writes all of `content` to `fd`; returns 0 or the errno of the failing call.
int write_all(int fd, const std::string& content) {
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void write_file_atomic(const fs::path& path, const std::string& content, const std::string& shown_in) {
  const std::string shown = shown_in.empty() ? path.string() : shown_in;
  // O_EXCL: a leftover temporary of a crashed run with the same PID is skipped, not truncated.
  fs::path tmp;
  int fd = -1;
  for (int k = 0; fd < 0; ++k) {
    tmp = path;
    tmp += k ? fmt::format(".tmp-{}-{}", ::getpid(), k) : fmt::format(".tmp-{}", ::getpid());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || k >= 100)) fail_write(shown, errno);
  }
  int err = write_all(fd, content);
  if (!err && ::fsync(fd) != 0) err = errno;  // the rename must not publish unwritten blocks
  if (::close(fd) != 0 && !err) err = errno;
  if (!err && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp.c_str());
    fail_write(shown, err);
  }
}

void write_in_place(const fs::path& path, const std::string& content, const std::string& shown_in) {
  const std::string shown = shown_in.empty() ? path.string() : shown_in;
  // O_APPEND: /dev/stdout redirected to a file (`>` or `>>`) keeps what is already there.
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) fail_write(shown, errno);
  int err = write_all(fd, content);
  if (::close(fd) != 0 && !err) err = errno;
  if (err) fail_write(shown, err);
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
