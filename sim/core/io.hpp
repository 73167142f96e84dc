#pragma once
// Output files are written atomically: to a temporary sibling, then renamed, so a failed run
// never leaves a partial file or directory behind.
#include <filesystem>
#include <string>
#include <string_view>

namespace floorsim::io {

// Writes `content` to `path` via `path.tmp-<pid>` + rename. Throws std::runtime_error.
void write_file_atomic(const std::filesystem::path& path, const std::string& content);

// Reads a whole file; throws InputError(path, "", "cannot read ...") when it cannot.
std::string read_file(const std::filesystem::path& path);

// Text inputs must be UTF-8: names read from them end up in JSON outputs, which cannot hold
// other bytes. Throws InputError(file, LINE, ...) at the first byte that is not UTF-8.
void check_utf8(std::string_view text, const std::string& file);

// A directory that appears only when commit() is called. Until then files go into a hidden
// temporary sibling (`.DIR.tmp-<pid>`), which the destructor removes if commit() never ran.
// commit() replaces an existing DIR.
class AtomicDir {
 public:
  explicit AtomicDir(std::filesystem::path final_dir);
  ~AtomicDir();
  AtomicDir(const AtomicDir&) = delete;
  AtomicDir& operator=(const AtomicDir&) = delete;

  const std::filesystem::path& path() const { return tmp_; }  // write files here
  std::filesystem::path file(const std::string& name) const { return tmp_ / name; }
  void commit();

 private:
  std::filesystem::path final_, tmp_;
  bool committed_ = false;
};

}  // namespace floorsim::io
