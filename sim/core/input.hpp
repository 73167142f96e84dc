#pragma once
// The one way floorsim reads an input file (traces, site configuration, scenarios).
//   * Plain or gzip: a file whose first bytes are the gzip magic (1f 8b) is decompressed as it is
//     read, whatever its name (zlib's gzread; several gzip members in a row are one stream).
//   * Streamed in chunks: a line-oriented reader holds one line (or one record) at a time.
//   * Bounded: kMaxLineBytes caps a line and kMaxDocumentBytes a whole document (JSON, YAML,
//     .conf), so /dev/zero, a file with no newline or a runaway stream ends in a one-line
//     InputError `FILE:LINE: ...` in bounded memory instead of exhausting it.
// LineSource checks every line is UTF-8 (names read from inputs end up in JSON outputs).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace floorsim::input {

// The longest line (or multi-line record: a sacct SubmitLine, a quoted CSV field) a reader
// accepts. Real trace lines are under 10 KiB; sacct's widest rows with a long SubmitLine stay
// far below this.
inline constexpr size_t kMaxLineBytes = size_t{1} << 20;  // 1 MiB
// The largest document read whole (JSON scenarios and Philly's job log, YAML, .conf files).
inline constexpr size_t kMaxDocumentBytes = size_t{256} << 20;  // 256 MiB

// The decompressed bytes of a file. Throws InputError(path, "", ...) when it cannot be opened,
// is a directory, or its gzip stream is corrupt or truncated.
class ByteStream {
 public:
  explicit ByteStream(std::string path);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;
  // Reads up to n bytes into dst; 0 only at the end of the input.
  size_t read(char* dst, size_t n);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  struct Gz;
  std::unique_ptr<Gz> gz_;
};

// Lines of a file (streamed) or of text already in memory. A line is returned without its
// "\n" or "\r\n"; the last line may lack a newline. The view stays valid until the next call.
class LineSource {
 public:
  explicit LineSource(std::string path, size_t max_line_bytes = kMaxLineBytes);
  // `text` must outlive the source; `path` names it in errors.
  LineSource(std::string path, std::string_view text, size_t max_line_bytes = kMaxLineBytes);
  ~LineSource();
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // Next line; false at the end. Throws InputError(path, LINE, ...) for a line longer than the
  // cap or bytes that are not UTF-8.
  bool next(std::string_view& line);
  size_t line_no() const { return line_no_; }  // 1-based number of the last line returned
  const std::string& path() const { return path_; }
  size_t max_line_bytes() const { return max_line_; }

  // Everything not yet returned, as one view (JSON documents); InputError past `max_bytes`.
  std::string_view rest(size_t max_bytes = kMaxDocumentBytes);

 private:
  bool fill();  // reads one more chunk; false at the end of the input
  void check_line(std::string_view line) const;
  std::string path_;
  size_t max_line_;
  std::unique_ptr<ByteStream> bytes_;  // null for text in memory
  std::string store_;                  // the window of a streamed file
  std::string doc_;                    // the whole rest, after rest()
  const char* data_ = nullptr;         // store_.data() or the caller's text
  size_t pos_ = 0, end_ = 0, scanned_ = 0, line_no_ = 0;
  bool eof_ = false;
};

// Throws InputError(file, LINE, ...) at the first byte that is not UTF-8; `text` starts at line
// `first_line` of the file (io::check_utf8 is this with line 1).
void check_utf8(std::string_view text, const std::string& file, size_t first_line);

// A whole document (JSON), plain or gzip, at most `max_bytes`; InputError(path, "", ...) past it.
std::string read_document(const std::string& path, size_t max_bytes = kMaxDocumentBytes);

// A whole line-oriented text (slurm.conf, gres.conf, topology.conf, sacctmgr dumps, YAML): as
// read_document, and each line at most kMaxLineBytes (InputError naming FILE:LINE). The bytes
// are returned as they are (the caller checks UTF-8).
std::string read_text(const std::string& path, size_t max_bytes = kMaxDocumentBytes);

}  // namespace floorsim::input
