#pragma once
// Where floorsim may write, and how it replaces an earlier output. floorsim never deletes a path
// it did not create:
//  - A directory output carries a marker file (kMarkerName: tool, verb, version; no time, so
//    outputs stay byte-identical). An existing directory is replaced only when it has the marker,
//    is empty, or the user passed --force.
//  - A single-file output (report.html, a converted trace, calibration.json) cannot carry a
//    marker, so an existing file is replaced only with --force. A character device, a FIFO or
//    an open descriptor (/dev/stdout even when redirected to a file) is written in place.
//  - Always refused, even with --force: `/`, the home directory, the working directory and their
//    ancestors; a path that is, contains or lies inside an input of the command.
// Paths are compared after std::filesystem::weakly_canonical, so symlinks and `a/../b`
// spellings name what they point at.
//
// Replacing is atomic: the new output is written in a temporary sibling (`.NAME.tmp-PID`), the
// old one renamed aside (`.NAME.old-PID`), the new one renamed in, then the old one removed. A
// crash leaves one complete output under NAME or, between the two renames, under .NAME.old-PID.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace floorsim::io {

extern const char* const kVersion;  // the project version (CMakeLists.txt)
inline constexpr const char* kMarkerName = ".floorsim-output";

enum class OutKind { Directory, File };

// Something the command reads. A tree (a run or shard directory read as a whole) may not hold
// the output either; a scenario's folder may.
struct OutInput {
  std::filesystem::path path;
  bool tree = false;
};

// What the output path holds now.
enum class Existing { None, FloorsimDir, EmptyDir, OtherDir, RegularFile, Stream, Other };

// What to do with it.
struct OutAction {
  enum Kind { Create, Replace, WriteInPlace, Refuse } kind = Create;
  std::string why;  // for Refuse: "is ...; expected ..."
};

// Pure. All paths absolute and canonical. Returns why `out` may never be written ("is the
// working directory; ..."), or nothing when it may.
std::optional<std::string> classify_out_path(const std::filesystem::path& out, const std::vector<OutInput>& inputs,
                                             const std::filesystem::path& cwd, const std::filesystem::path& home);

// Pure. What an output of `kind` does with what `existing` describes.
OutAction decide_existing(OutKind kind, Existing existing, bool force);

// Reads the file system: what `p` holds (without following a final symlink).
Existing inspect(const std::filesystem::path& p);

// The marker's text for `verb`.
std::string marker_text(const std::string& verb);

struct OutRequest {
  std::string out;  // as the user wrote it: every message names this
  OutKind kind = OutKind::Directory;
  std::string verb;
  bool force = false;
  std::vector<OutInput> inputs;
};

// A checked output path. Made by check_output(), taken by OutputDir and write_output_file().
struct OutTarget {
  std::string shown;            // the user's spelling
  std::filesystem::path path;   // canonical (a symlinked --out replaces what it points at)
  OutKind kind = OutKind::Directory;
  std::string verb;
  bool force = false;
  OutAction action;             // as decided at check time; decided again when writing
};

// Checks `r` before any work starts. Throws InputError(r.out, "", why) when refused.
OutTarget check_output(const OutRequest& r);

// A directory output. Staged: files go into a hidden temporary sibling until commit() replaces
// (or creates) the final directory; the destructor removes the sibling if commit() never ran.
// In place (in_place()): files go straight into the final directory, which is created with its
// marker first; for outputs built up over time and resumed (sweep --resume).
class OutputDir {
 public:
  explicit OutputDir(OutTarget target);
  static OutputDir in_place(OutTarget target);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;
  OutputDir(OutputDir&&) noexcept;

  std::filesystem::path file(const std::string& name) const { return work_ / name; }
  std::string shown(const std::string& name) const;  // the user's spelling of OUT/name
  // Writes OUT/name atomically; errors name the user's path and the OS reason.
  void write(const std::string& name, const std::string& content) const;
  void commit();

 private:
  OutputDir(OutTarget target, bool in_place);
  OutTarget t_;
  std::filesystem::path work_;
  bool staged_ = true, done_ = false;
};

// Writes a single-file output (atomically unless it is a stream).
void write_output_file(const OutTarget& t, const std::string& content);

}  // namespace floorsim::io
