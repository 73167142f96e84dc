#include "sim/core/io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"

namespace floorsim::io {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail_write(const std::string& shown, int err) {
  throw std::runtime_error("cannot write " + shown + ": " + std::generic_category().message(err));
}

// Writes all of `content` to `fd`; returns 0 or the errno of the failing call.
int write_all(int fd, std::string_view content) {
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

AtomicFileWriter::AtomicFileWriter(fs::path path, const std::string& shown)
    : path_(std::move(path)), shown_(shown.empty() ? path_.string() : shown) {
  // O_EXCL: a leftover temporary of a crashed run with the same PID is skipped, not truncated.
  for (int k = 0; fd_ < 0; ++k) {
    tmp_ = path_;
    tmp_ += k ? fmt::format(".tmp-{}-{}", ::getpid(), k) : fmt::format(".tmp-{}", ::getpid());
    fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno != EEXIST || k >= 100)) fail_write(shown_, errno);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(tmp_.c_str());
}

void AtomicFileWriter::fail(int err) {
  ::close(fd_);
  fd_ = -1;
  ::unlink(tmp_.c_str());
  fail_write(shown_, err);
}

void AtomicFileWriter::append(std::string_view content) {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter: append after finish");
  if (const int err = write_all(fd_, content)) fail(err);
}

void AtomicFileWriter::finish() {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter: finish twice");
  int err = 0;
  if (::fsync(fd_) != 0) err = errno;  // the rename must not publish unwritten blocks
  if (::close(fd_) != 0 && !err) err = errno;
  fd_ = -1;
  if (!err && ::rename(tmp_.c_str(), path_.c_str()) != 0) err = errno;
  if (err) {
    ::unlink(tmp_.c_str());
    fail_write(shown_, err);
  }
}

void write_file_atomic(const fs::path& path, const std::string& content, const std::string& shown) {
  AtomicFileWriter w(path, shown);
  w.append(content);
  w.finish();
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

// Plain or gzip, at most input::kMaxDocumentBytes (sim/core/input.hpp).
std::string read_file(const fs::path& path) { return input::read_document(path.string()); }

void check_utf8(std::string_view text, const std::string& file) { input::check_utf8(text, file, 1); }

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

nlohmann::json json_finite(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace floorsim::io
