#pragma once
// File reading and the atomic write under every output: a temporary sibling, then a rename, so
// a failed run never leaves a partial file behind.
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace floorsim::io {

// Writes `content` to `path` via `path.tmp-<pid>` + fsync + rename. Throws std::runtime_error
// "cannot write SHOWN: <OS reason>", SHOWN being `shown` (the user's spelling) or else `path`;
// the temporary file is removed. Outputs the user names go through output_guard.hpp, which
// decides first whether `path` may be written at all.
void write_file_atomic(const std::filesystem::path& path, const std::string& content, const std::string& shown = "");

// The same write in pieces, for an output too large to hold whole (jobs.csv of millions of
// jobs): append() writes to the temporary, finish() publishes it; destroyed before finish(),
// the temporary is removed and nothing is published. Errors as write_file_atomic's.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path, const std::string& shown = "");
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void append(std::string_view content);
  void finish();

 private:
  [[noreturn]] void fail(int err);
  std::filesystem::path path_, tmp_;
  std::string shown_;
  int fd_ = -1;
};

// Writes (appends) `content` to an existing stream (a character device, a FIFO, /dev/stdout)
// without creating or replacing anything. Errors as write_file_atomic's.
void write_in_place(const std::filesystem::path& path, const std::string& content, const std::string& shown = "");

// Reads a whole file; throws InputError(path, "", "cannot read ...") when it cannot.
std::string read_file(const std::filesystem::path& path);

// Text inputs must be UTF-8: names read from them end up in JSON outputs, which cannot hold
// other bytes. Throws InputError(file, LINE, ...) at the first byte that is not UTF-8.
void check_utf8(std::string_view text, const std::string& file);

// One CSV field (RFC 4180): quoted, inner quotes doubled, when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

// A figure for a JSON output: the number, or null where it is not finite (JSON has no inf/NaN).
nlohmann::json json_finite(double v);

}  // namespace floorsim::io
