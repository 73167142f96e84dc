#include "sim/core/input.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace floorsim::input {
namespace {

// Bytes asked of zlib per read: large enough that a plain file is read straight into our
// buffer (gzread copies directly for requests past its own buffer) in few system calls.
constexpr size_t kChunkBytes = size_t{256} << 10;

std::string mib(size_t bytes) {
  return bytes % (size_t{1} << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

[[noreturn]] void too_long(const std::string& path, size_t line, size_t cap) {
  throw InputError(path, std::to_string(line),
                   fmt::format("line is longer than {}; expected text lines (is this a binary file or a stream?)", mib(cap)));
}

[[noreturn]] void too_large(const std::string& path, size_t cap) {
  throw InputError(path, "", fmt::format("larger than {}; expected a document of at most {}", mib(cap), mib(cap)));
}

}  // namespace

// zlib's gzFile reads gzip and, for anything else, the bytes as they are ("transparent"): the
// decision is made on the magic bytes, never on the name.
struct ByteStream::Gz {
  gzFile f = nullptr;
  ~Gz() {
    if (f) gzclose_r(f);
  }
};

ByteStream::ByteStream(std::string path) : path_(std::move(path)), gz_(std::make_unique<Gz>()) {
  std::error_code ec;
  if (std::filesystem::is_directory(path_, ec)) throw InputError(path_, "", "is a directory; expected a file");
  errno = 0;
  gz_->f = gzopen(path_.c_str(), "rb");
  if (!gz_->f) {
    const std::string why = errno ? std::strerror(errno) : "cannot open";
    throw InputError(path_, "", "cannot read file (" + why + "); expected a readable file");
  }
  gzbuffer(gz_->f, 128 << 10);
}

ByteStream::~ByteStream() = default;

size_t ByteStream::read(char* dst, size_t n) {
  const unsigned ask = static_cast<unsigned>(std::min<size_t>(n, INT_MAX));
  const int got = gzread(gz_->f, dst, ask);
  int err = Z_OK;
  std::string_view msg = gzerror(gz_->f, &err);
  if (msg.substr(0, path_.size() + 2) == path_ + ": ") msg.remove_prefix(path_.size() + 2);  // zlib prefixes the path
  // A truncated gzip member reads as an early end with Z_BUF_ERROR ("unexpected end of file").
  if (got < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    if (err == Z_ERRNO)
      throw InputError(path_, "", fmt::format("read error ({}); expected a readable file", std::strerror(errno)));
    throw InputError(path_, "", fmt::format("corrupt or truncated gzip data ({}); expected a complete .gz file", msg));
  }
  return static_cast<size_t>(got);
}

void check_utf8(std::string_view text, const std::string& file, size_t first_line) {
  size_t line = first_line, line_start = 0;
  const auto* b = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    // Fast path: 8 ASCII bytes with no newline among them (most of every trace).
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, b + i, 8);
      constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
      const uint64_t nl = w ^ (kOnes * '\n');
      if (((w | ((nl - kOnes) & ~nl)) & kHigh) == 0) {
        i += 8;
        continue;
      }
    }
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

LineSource::LineSource(std::string path, size_t max_line_bytes)
    : path_(std::move(path)), max_line_(max_line_bytes), bytes_(std::make_unique<ByteStream>(path_)) {
  store_.resize(kChunkBytes);
  data_ = store_.data();
}

LineSource::LineSource(std::string path, std::string_view text, size_t max_line_bytes)
    : path_(std::move(path)), max_line_(max_line_bytes), data_(text.data()), end_(text.size()), eof_(true) {}

LineSource::~LineSource() = default;

bool LineSource::fill() {
  if (eof_) return false;
  // Keep the unread tail at the front, then grow only when the tail fills the buffer (a long
  // line): the buffer stays within max_line + 2 chunks.
  if (pos_ > 0) {
    std::memmove(store_.data(), store_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    scanned_ -= pos_;
    pos_ = 0;
  }
  if (store_.size() - end_ < kChunkBytes / 2) store_.resize(store_.size() + kChunkBytes);
  data_ = store_.data();
  const size_t got = bytes_->read(store_.data() + end_, store_.size() - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

void LineSource::check_line(std::string_view line) const {
  if (line.size() > max_line_) too_long(path_, line_no_, max_line_);
  check_utf8(line, path_, line_no_);
}

bool LineSource::next(std::string_view& line) {
  for (;;) {
    const void* nl = std::memchr(data_ + scanned_, '\n', end_ - scanned_);
    if (nl) {
      const size_t at = static_cast<size_t>(static_cast<const char*>(nl) - data_);
      size_t len = at - pos_;
      if (len > 0 && data_[at - 1] == '\r') --len;
      line = std::string_view(data_ + pos_, len);
      pos_ = scanned_ = at + 1;
      ++line_no_;
      check_line(line);
      return true;
    }
    scanned_ = end_;
    if (end_ - pos_ > max_line_ + 1) too_long(path_, line_no_ + 1, max_line_);
    if (!fill()) break;
  }
  if (pos_ >= end_) return false;
  size_t len = end_ - pos_;
  if (data_[end_ - 1] == '\r') --len;
  line = std::string_view(data_ + pos_, len);
  pos_ = scanned_ = end_;
  ++line_no_;
  check_line(line);
  return true;
}

namespace {

// Appends one chunk of `in` to `out`; false at the end of the input. Never holds more than
// max_bytes (reads are cut there, and one more byte means too large), so std::string's doubling
// stops at the cap instead of going past it.
bool append_chunk(ByteStream& in, std::string& out, size_t max_bytes) {
  const size_t have = out.size();
  if (have >= max_bytes) {
    char probe;
    if (in.read(&probe, 1) > 0) too_large(in.path(), max_bytes);
    return false;
  }
  const size_t ask = std::min(kChunkBytes, max_bytes - have);
  out.resize(have + ask);
  const size_t got = in.read(out.data() + have, ask);
  out.resize(have + got);
  return got > 0;
}

}  // namespace

std::string_view LineSource::rest(size_t max_bytes) {
  if (end_ - pos_ > max_bytes) too_large(path_, max_bytes);
  if (bytes_ && !eof_) {  // the buffered tail, then the rest of the stream
    doc_.assign(data_ + pos_, end_ - pos_);
    store_ = std::string();
    while (append_chunk(*bytes_, doc_, max_bytes)) {
    }
    eof_ = true;
    data_ = doc_.data();
    pos_ = 0;
    end_ = doc_.size();
  }
  std::string_view all(data_ + pos_, end_ - pos_);
  check_utf8(all, path_, line_no_ + 1);
  pos_ = scanned_ = end_;
  return all;
}

std::string read_document(const std::string& path, size_t max_bytes) {
  ByteStream in(path);
  std::string out;
  while (append_chunk(in, out, max_bytes)) {
  }
  return out;
}

std::string read_text(const std::string& path, size_t max_bytes) {
  ByteStream in(path);
  std::string out;
  size_t line = 1, line_start = 0;
  for (bool more = true; more;) {
    const size_t have = out.size();
    more = append_chunk(in, out, max_bytes);
    for (const char* p = out.data() + have; (p = static_cast<const char*>(std::memchr(p, '\n', out.data() + out.size() - p)));) {
      const size_t at = static_cast<size_t>(p - out.data());
      if (at - line_start > kMaxLineBytes + 1) too_long(path, line, kMaxLineBytes);
      ++line, line_start = at + 1, ++p;
    }
    if (out.size() - line_start > kMaxLineBytes + 1) too_long(path, line, kMaxLineBytes);
  }
  return out;
}

}  // namespace floorsim::input
