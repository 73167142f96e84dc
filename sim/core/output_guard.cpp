#include "sim/core/output_guard.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/io.hpp"

namespace floorsim::io {
namespace fs = std::filesystem;

const char* const kVersion = FLOORSIM_VERSION;

namespace {

// True when `inner` is `outer` or lies below it (both canonical, so a component-wise prefix).
bool within(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

// Absolute, symlinks of the existing prefix resolved, `.`/`..` folded, no trailing separator.
fs::path canonical_path(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  if (ec) c = fs::absolute(p).lexically_normal();  // an unreadable prefix: compare as spelled
  if (!c.has_filename() && c != c.root_path()) c = c.parent_path();
  return c;
}

fs::path home_dir() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return {};
}

[[noreturn]] void fail_fs(const std::string& what, const std::string& shown, const std::error_code& ec) {
  throw std::runtime_error(what + " " + shown + ": " + ec.message());
}

bool has_marker(const fs::path& dir) {
  std::error_code ec;
  const fs::path m = dir / kMarkerName;
  if (!fs::is_regular_file(fs::symlink_status(m, ec))) return false;
  std::ifstream in(m, std::ios::binary);
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  const auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_object() && j.value("tool", "") == "floorsim";
}

// A new sibling of `final` named .NAME.<tag>-PID[-k]. With `make` it is created here as a
// directory (mkdir fails on an existing name, so another run's leftover is never reused).
fs::path free_sibling(const fs::path& final, const std::string& tag, bool make, const std::string& shown) {
  const std::string base = fmt::format(".{}.{}-{}", final.filename().string(), tag, ::getpid());
  std::error_code ec;
  for (int k = 0;; ++k) {
    fs::path p = final.parent_path() / (k ? fmt::format("{}-{}", base, k) : base);
    if (!make) {
      if (!fs::exists(fs::symlink_status(p, ec))) return p;
    } else if (fs::create_directory(p, ec)) {
      return p;
    } else if (ec && ec != std::errc::file_exists) {
      fail_fs("cannot create", shown, ec);
    }
  }
}

// Makes a rename durable; a failure here loses nothing that is not already on disk.
void sync_dir(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: a descriptor already open (a pipe or a
// file the shell redirected to), which the user means to write through, whatever it is.
bool names_open_descriptor(const std::string& out) {
  const std::string p = fs::absolute(out).lexically_normal().string();
  return p == "/dev/stdout" || p == "/dev/stderr" || p.rfind("/dev/fd/", 0) == 0 || p.rfind("/proc/self/fd/", 0) == 0;
}

OutAction refuse(std::string why) { return {OutAction::Refuse, std::move(why)}; }

}  // namespace

std::optional<std::string> classify_out_path(const fs::path& out, const std::vector<OutInput>& inputs, const fs::path& cwd,
                                             const fs::path& home) {
  const std::string never = "; expected a path that is not /, the home or working directory, nor one of their ancestors";
  if (out == out.root_path()) return "is the root directory" + never;
  if (!home.empty() && within(home, out))
    return (out == home ? "is the home directory" : "contains the home directory " + home.string()) + never;
  if (within(cwd, out)) return (out == cwd ? "is the working directory" : "contains the working directory " + cwd.string()) + never;
  for (const auto& in : inputs) {
    if (out == in.path) return std::string("is an input of this command; expected an output path apart from the inputs");
    if (within(in.path, out)) return "contains the input " + in.path.string() + "; expected an output path apart from the inputs";
    if (in.tree && within(out, in.path))
      return "lies inside the input directory " + in.path.string() + "; expected an output path outside it";
  }
  return std::nullopt;
}

OutAction decide_existing(OutKind kind, Existing existing, bool force) {
  const std::string other = "is neither a file nor a directory (a socket, block device or dangling symbolic link); expected a new path";
  if (kind == OutKind::Directory) {
    switch (existing) {
      case Existing::None: return {OutAction::Create, ""};
      case Existing::FloorsimDir:
      case Existing::EmptyDir: return {OutAction::Replace, ""};
      case Existing::OtherDir:
        if (force) return {OutAction::Replace, ""};
        return refuse(std::string("is a directory floorsim did not write (it has no ") + kMarkerName +
                      "); expected a new path, or --force to replace it");
      case Existing::RegularFile:
        if (force) return {OutAction::Replace, ""};
        return refuse("is an existing file; expected a directory path, or --force to replace the file");
      case Existing::Stream: return refuse("is a device or pipe; expected a directory path");
      case Existing::Other: return refuse(other);
    }
  }
  switch (existing) {
    case Existing::None: return {OutAction::Create, ""};
    case Existing::RegularFile:
      if (force) return {OutAction::Replace, ""};
      return refuse("exists, and a single file carries no mark of who wrote it; expected a new path, or --force to replace it");
    case Existing::Stream: return {OutAction::WriteInPlace, ""};
    case Existing::FloorsimDir:
    case Existing::EmptyDir:
    case Existing::OtherDir: return refuse("is a directory; expected a file path");
    case Existing::Other: return refuse(other);
  }
  return refuse(other);
}

Existing inspect(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  // A file where a parent directory should be: nothing can exist there; creating it will say why.
  if (ec == std::errc::not_a_directory) return Existing::None;
  if (ec && ec != std::errc::no_such_file_or_directory) fail_fs("cannot inspect", p.string(), ec);
  switch (st.type()) {
    case fs::file_type::not_found: return Existing::None;
    case fs::file_type::regular: return Existing::RegularFile;
    case fs::file_type::character:
    case fs::file_type::fifo: return Existing::Stream;
    case fs::file_type::directory:
      if (has_marker(p)) return Existing::FloorsimDir;
      return fs::is_empty(p, ec) && !ec ? Existing::EmptyDir : Existing::OtherDir;
    default: return Existing::Other;
  }
}

std::string marker_text(const std::string& verb) {
  return nlohmann::json{{"tool", "floorsim"}, {"verb", verb}, {"version", kVersion}}.dump(2) + "\n";
}

OutTarget check_output(const OutRequest& r) {
  if (r.out.empty()) throw InputError("", "", "the output path is empty; expected a path");
  OutTarget t{r.out, {}, r.kind, r.verb, r.force, {}};
  std::error_code ec;
  if (r.kind == OutKind::File) {
    // A stream (a device, a named pipe, an open descriptor) is written in place: nothing there
    // to replace.
    const fs::file_status st = fs::status(r.out, ec);
    if (!ec && (fs::is_character_file(st) || fs::is_fifo(st) || (names_open_descriptor(r.out) && fs::is_regular_file(st)))) {
      t.path = r.out;
      t.action = {OutAction::WriteInPlace, ""};
      return t;
    }
  }
  t.path = canonical_path(r.out);
  std::vector<OutInput> inputs;
  for (const auto& in : r.inputs)
    if (!in.path.empty()) inputs.push_back({canonical_path(in.path), in.tree});
  const fs::path home = home_dir();
  if (auto why = classify_out_path(t.path, inputs, canonical_path(fs::current_path()), home.empty() ? home : canonical_path(home)))
    throw InputError(r.out, "", *why);
  t.action = decide_existing(r.kind, inspect(t.path), r.force);
  if (t.action.kind == OutAction::Refuse) throw InputError(r.out, "", t.action.why);
  return t;
}

OutputDir::OutputDir(OutTarget target) : OutputDir(std::move(target), false) {}

OutputDir OutputDir::in_place(OutTarget target) { return OutputDir(std::move(target), true); }

OutputDir::OutputDir(OutTarget target, bool in_place) : t_(std::move(target)), staged_(!in_place) {
  std::error_code ec;
  fs::create_directories(t_.path.parent_path(), ec);
  if (ec) fail_fs("cannot create", t_.shown, ec);
  if (in_place) {
    // Only into what floorsim may fill: nothing, an empty directory, or its own output.
    const Existing e = inspect(t_.path);
    if (e != Existing::None && e != Existing::EmptyDir && e != Existing::FloorsimDir)
      throw InputError(t_.shown, "", decide_existing(OutKind::Directory, e, false).why);
    work_ = t_.path;
    fs::create_directory(work_, ec);
  } else {
    work_ = free_sibling(t_.path, "tmp", true, t_.shown);
  }
  if (ec) fail_fs("cannot create", t_.shown, ec);
  try {
    write(kMarkerName, marker_text(t_.verb));
  } catch (...) {
    if (staged_) fs::remove_all(work_, ec);  // no destructor runs for a throwing constructor
    throw;
  }
}

OutputDir::OutputDir(OutputDir&& o) noexcept : t_(std::move(o.t_)), work_(std::move(o.work_)), staged_(o.staged_), done_(o.done_) {
  o.done_ = true;
}

OutputDir::~OutputDir() {
  if (staged_ && !done_) {
    std::error_code ec;
    fs::remove_all(work_, ec);  // our own temporary sibling
  }
}

std::string OutputDir::shown(const std::string& name) const {
  return t_.shown + (!t_.shown.empty() && t_.shown.back() == '/' ? "" : "/") + name;
}

void OutputDir::write(const std::string& name, const std::string& content) const {
  write_file_atomic(work_ / name, content, shown(name));
}

void OutputDir::commit() {
  if (done_) return;
  if (!staged_) {
    done_ = true;
    return;
  }
  // Decided again: the path may have changed since check_output().
  const OutAction a = decide_existing(t_.kind, inspect(t_.path), t_.force);
  if (a.kind == OutAction::Refuse) throw InputError(t_.shown, "", a.why);
  std::error_code ec;
  if (a.kind == OutAction::Create) {
    fs::rename(work_, t_.path, ec);
    if (ec) fail_fs("cannot write", t_.shown, ec);
  } else {
    const fs::path aside = free_sibling(t_.path, "old", false, t_.shown);
    fs::rename(t_.path, aside, ec);
    if (ec) fail_fs("cannot replace", t_.shown, ec);
    fs::rename(work_, t_.path, ec);
    if (ec) {
      std::error_code back;
      fs::rename(aside, t_.path, back);
      fail_fs("cannot write", t_.shown, ec);
    }
    fs::remove_all(aside, ec);
    if (ec)
      std::cerr << "floorsim: warning: " << t_.shown << ": the earlier output, moved to " << aside.string()
                << ", could not be removed: " << ec.message() << "\n";
  }
  sync_dir(t_.path.parent_path());
  done_ = true;
}

void write_output_file(const OutTarget& t, const std::string& content) {
  if (t.action.kind == OutAction::WriteInPlace) return write_in_place(t.path, content, t.shown);
  // Decided again: the path may have changed since check_output().
  const OutAction a = decide_existing(t.kind, inspect(t.path), t.force);
  if (a.kind == OutAction::Refuse) throw InputError(t.shown, "", a.why);
  if (a.kind == OutAction::WriteInPlace) return write_in_place(t.path, content, t.shown);
  write_file_atomic(t.path, content, t.shown);  // rename(2) replaces a file atomically
}

}  // namespace floorsim::io
