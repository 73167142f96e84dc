#include "sim/core/io.hpp"

#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

#include "sim/core/error.hpp"
#include "sim/core/input.hpp"

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

// Plain or gzip, at most input::kMaxDocumentBytes (sim/core/input.hpp).
std::string read_file(const fs::path& path) { return input::read_document(path.string()); }

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

void check_utf8(std::string_view text, const std::string& file) { input::check_utf8(text, file, 1); }

}  // namespace floorsim::io
