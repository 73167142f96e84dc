// Output paths (sim/core/output_guard.hpp): which paths floorsim may write, what an existing one
// becomes, and that replacing leaves exactly the new output with nothing of the user's touched.
#include <unistd.h>

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/core/io.hpp"
#include "sim/core/output_guard.hpp"

using namespace floorsim;
using namespace floorsim::io;
namespace fs = std::filesystem;

namespace {

struct PathCase {
  const char* out;
  bool allowed;
  const char* why_has;  // a phrase the refusal must contain
};

// A fresh directory under the build tree's temp dir, removed at the end.
struct TempDir {
  fs::path p = fs::temp_directory_path() / ("floorsim_output_guard_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("classify_out_path refuses /, home, the working directory, their ancestors and inputs", "[output]") {
  const fs::path cwd = "/home/ana/work/study", home = "/home/ana";
  const std::vector<OutInput> inputs = {{"/home/ana/work/study/scenarios/night.json", false},
                                        {"/data/traces/helios.csv", false},
                                        {"/home/ana/work/study/runs/r1", true}};
  const PathCase cases[] = {
      {"/", false, "root directory"},
      {"/home/ana", false, "home directory"},
      {"/home", false, "contains the home directory"},
      {"/home/ana/work/study", false, "is the working directory"},  // `--out .`
      {"/home/ana/work", false, "contains the working directory"},  // `--out ..`
      {"/home/ana/work/study/scenarios", false, "contains the input /home/ana/work/study/scenarios/night.json"},
      {"/home/ana/work/study/scenarios/night.json", false, "is an input"},
      {"/data/traces/helios.csv", false, "is an input"},
      {"/data/traces", false, "contains the input"},
      {"/data", false, "contains the input"},
      {"/home/ana/work/study/runs/r1", false, "is an input"},
      {"/home/ana/work/study/runs/r1/audit", false, "lies inside the input directory"},
      {"/home/ana/work/study/runs/r1/metrics.json", false, "lies inside the input directory"},
      {"/home/ana/work/study/runs", false, "contains the input"},
      {"/home/ana/work/study/out", true, ""},
      {"/home/ana/work/study/scenarios/out", true, ""},  // beside a scenario file: fine
      {"/home/ana/work/study/runs/r1-audit", true, ""},   // a prefix of the name is not a parent
      {"/data/traces/helios.csv.out", true, ""},
      {"/tmp/floorsim/out", true, ""},
  };
  for (const auto& c : cases) {
    INFO(c.out);
    const auto why = classify_out_path(c.out, inputs, cwd, home);
    if (c.allowed) {
      CHECK(!why);
    } else {
      REQUIRE(why);
      CHECK_THAT(*why, Catch::Contains(c.why_has));
      CHECK_THAT(*why, Catch::Contains("; expected"));
    }
  }
  // Without a home directory, a path outside everything is fine.
  CHECK(!classify_out_path("/srv/out", {}, "/srv/x", ""));
}

TEST_CASE("decide_existing: directories replace only floorsim's or empty ones, files only with --force", "[output]") {
  struct Case {
    OutKind kind;
    Existing existing;
    bool force;
    OutAction::Kind want;
  };
  using K = OutKind;
  using E = Existing;
  using A = OutAction;
  const Case cases[] = {
      {K::Directory, E::None, false, A::Create},         {K::Directory, E::FloorsimDir, false, A::Replace},
      {K::Directory, E::EmptyDir, false, A::Replace},    {K::Directory, E::OtherDir, false, A::Refuse},
      {K::Directory, E::OtherDir, true, A::Replace},     {K::Directory, E::RegularFile, false, A::Refuse},
      {K::Directory, E::RegularFile, true, A::Replace},  {K::Directory, E::Stream, true, A::Refuse},
      {K::Directory, E::Other, true, A::Refuse},         {K::File, E::None, false, A::Create},
      {K::File, E::RegularFile, false, A::Refuse},       {K::File, E::RegularFile, true, A::Replace},
      {K::File, E::Stream, false, A::WriteInPlace},      {K::File, E::FloorsimDir, true, A::Refuse},
      {K::File, E::EmptyDir, true, A::Refuse},           {K::File, E::OtherDir, true, A::Refuse},
      {K::File, E::Other, true, A::Refuse},
  };
  for (const auto& c : cases) {
    INFO("kind " << int(c.kind) << " existing " << int(c.existing) << " force " << c.force);
    const OutAction a = decide_existing(c.kind, c.existing, c.force);
    CHECK(a.kind == c.want);
    CHECK(a.why.empty() == (a.kind != A::Refuse));
  }
}

TEST_CASE("check_output resolves symlinks and a/../b before deciding", "[output]") {
  TempDir t;
  fs::create_directories(t.p / "study");
  put(t.p / "study" / "s.json", "{}");
  fs::create_directory_symlink(t.p / "study", t.p / "link");
  const std::vector<OutInput> in = {{(t.p / "study" / "s.json").string(), false}};
  // The scenario's folder, spelled through a symlink or a detour.
  for (const fs::path& out : {t.p / "link", t.p / "study" / "x" / "..", t.p / "link" / "."}) {
    INFO(out.string());
    CHECK_THROWS_WITH(check_output({out.string(), OutKind::Directory, "run", true, in}), Catch::Contains("contains the input"));
  }
  CHECK_THROWS_WITH(check_output({(t.p / "link" / "s.json").string(), OutKind::File, "trace", true, in}),
                    Catch::Contains("is an input"));
  // The working directory and its parent, even with --force.
  const fs::path was = fs::current_path();
  fs::current_path(t.p / "study");
  CHECK_THROWS_WITH(check_output({".", OutKind::Directory, "run", true, {}}), Catch::Contains("is the working directory"));
  CHECK_THROWS_WITH(check_output({"..", OutKind::Directory, "run", true, {}}), Catch::Contains("contains the working directory"));
  CHECK_THROWS_WITH(check_output({"out/../..", OutKind::Directory, "run", true, {}}), Catch::Contains("contains the working directory"));
  fs::current_path(was);
  CHECK_THROWS_WITH(check_output({"/", OutKind::Directory, "run", true, {}}), Catch::Contains("root directory"));
}

TEST_CASE("OutputDir replaces floorsim's own output and refuses a directory it did not write", "[output]") {
  TempDir t;
  const fs::path out = t.p / "out";
  auto write_out = [&](const std::string& text, bool force) {
    OutputDir d(check_output({out.string(), OutKind::Directory, "run", force, {}}));
    d.write("metrics.json", text);
    d.commit();
  };
  write_out("one", false);
  CHECK(slurp(out / "metrics.json") == "one");
  CHECK(slurp(out / kMarkerName) == marker_text("run"));
  CHECK(inspect(out) == Existing::FloorsimDir);
  write_out("two", false);  // an earlier floorsim output: replaced
  CHECK(slurp(out / "metrics.json") == "two");
  CHECK(entries(t.p) == 1);  // no temporary or set-aside sibling left

  // A directory of the user's: refused, contents intact; --force replaces it.
  const fs::path mine = t.p / "mine";
  fs::create_directories(mine);
  put(mine / "thesis.tex", "precious");
  CHECK_THROWS_AS(check_output({mine.string(), OutKind::Directory, "run", false, {}}), InputError);
  CHECK(slurp(mine / "thesis.tex") == "precious");
  OutputDir d(check_output({mine.string(), OutKind::Directory, "run", true, {}}));
  d.write("metrics.json", "x");
  d.commit();
  CHECK(!fs::exists(mine / "thesis.tex"));
  CHECK(slurp(mine / "metrics.json") == "x");

  // Never committed: the temporary sibling is gone, the earlier output untouched.
  {
    OutputDir e(check_output({out.string(), OutKind::Directory, "run", false, {}}));
    e.write("metrics.json", "three");
  }
  CHECK(slurp(out / "metrics.json") == "two");
  CHECK(entries(t.p) == 2);
}

TEST_CASE("OutputDir never reuses nor removes a leftover sibling with its own PID", "[output]") {
  TempDir t;
  const fs::path out = t.p / "out";
  const fs::path left = t.p / (".out.tmp-" + std::to_string(::getpid()));
  fs::create_directories(left);
  put(left / "thesis.tex", "precious");
  OutputDir d(check_output({out.string(), OutKind::Directory, "run", false, {}}));
  d.write("metrics.json", "new");
  d.commit();
  CHECK(slurp(out / "metrics.json") == "new");
  CHECK(slurp(left / "thesis.tex") == "precious");
  CHECK(entries(left) == 1);
}

TEST_CASE("OutputDir::commit decides again: a directory that appeared meanwhile is not replaced", "[output]") {
  TempDir t;
  const fs::path out = t.p / "out";
  OutputDir d(check_output({out.string(), OutKind::Directory, "run", false, {}}));
  d.write("metrics.json", "new");
  fs::create_directories(out);
  put(out / "notes.txt", "mine");
  CHECK_THROWS_WITH(d.commit(), Catch::Contains("did not write"));
  CHECK(slurp(out / "notes.txt") == "mine");
}

TEST_CASE("single-file outputs: an existing file needs --force; errors name the user's path and the reason", "[output]") {
  TempDir t;
  const fs::path f = t.p / "report.html";
  write_output_file(check_output({f.string(), OutKind::File, "report", false, {}}), "one");
  CHECK(slurp(f) == "one");
  CHECK_THROWS_WITH(check_output({f.string(), OutKind::File, "report", false, {}}), Catch::Contains("--force"));
  write_output_file(check_output({f.string(), OutKind::File, "report", true, {}}), "two");
  CHECK(slurp(f) == "two");
  CHECK(entries(t.p) == 1);
  CHECK_THROWS_WITH(check_output({t.p.string(), OutKind::File, "report", true, {}}), Catch::Contains("is a directory"));

  // A missing parent: the message names the user's path, not a temporary one.
  const std::string missing = (t.p / "no" / "such" / "r.html").string();
  const OutTarget m = check_output({missing, OutKind::File, "report", false, {}});
  CHECK_THROWS_WITH(write_output_file(m, "x"), "cannot write " + missing + ": No such file or directory");
  // A full device is written in place and its error says so.
  if (fs::exists("/dev/full")) {
    const OutTarget full = check_output({"/dev/full", OutKind::File, "report", false, {}});
    CHECK(full.action.kind == OutAction::WriteInPlace);
    CHECK_THROWS_WITH(write_output_file(full, "x"), "cannot write /dev/full: No space left on device");
  }
  // /dev/stdout is written through, whatever it is redirected to (here: maybe a file).
  CHECK(check_output({"/dev/stdout", OutKind::File, "trace", false, {}}).action.kind == OutAction::WriteInPlace);
  // A directory output under a file: the OS reason, with the user's path.
  const std::string under = (f / "out").string();
  CHECK_THROWS_WITH(OutputDir(check_output({under, OutKind::Directory, "run", false, {}})), Catch::Contains(f.string()));
}
