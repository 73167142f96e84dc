// Microsoft Philly `cluster_job_log` (ATC'19; msr-fiddle/philly-traces): one JSON array of jobs
// {status, vc, jobid, user, submitted_time, attempts: [{start_time, end_time, detail: [{ip, gpus}]}]}.
//
// Mapping (the official analysis notebook's definitions, for comparability):
//   gpus = number of GPUs in attempts[0].detail (first attempt only).
//   runtime_s = attempts[-1].end_time - attempts[0].start_time: it includes the gaps between
//        attempts (counted as adjusted "multi_attempt_runtime_spans_attempts" when > 1 attempt).
//   recorded_start_s = attempts[0].start_time.
//   A time is missing when it is absent, null, "" or "None" (as the notebook parses it).
//   Times have no zone (presumably US Pacific); only differences are used: submit_s is seconds
//   since the earliest submitted_time in the file.
//   id = <cluster timestamp> * 1,000,000 + <counter> from jobid "application_<ts>_<counter>"
//        (the counter alone repeats across resource-manager restarts, so it is not unique); a
//        jobid of another shape gets its 1-based array position (adjusted "id_from_position").
//   user = user; account = partition = vc. time_limit_s: none given (missing_limit_is_runtime).
// Jobs skipped (counted by reason):
//   no_attempts                  zero attempts (typically killed while queued).
//   never_started                attempts[0].start_time missing.
//   censored_still_running       attempts[-1].end_time missing (running at snapshot time).
//   end_before_start             last end < first start.
//   cpu_only_job                 first attempt lists no GPUs (unless keep_cpu_jobs).
// A JSON syntax error is an InputError with the line; a field of the wrong type or a bad date
// names its JSON pointer (e.g. /17/attempts/0/start_time).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/core/json_errors.hpp"
#include "traces/parse_util.hpp"
#include "traces/readers.hpp"

namespace floorsim::traces::detail {

namespace {

using nlohmann::json;

[[noreturn]] void fail_at(const std::string& path, const std::string& ptr, const std::string& msg) {
  throw InputError(path, ptr, msg);
}

// Returns the time in seconds, nullopt when missing (absent, null, "", "None").
std::optional<double> philly_time(const json& obj, const char* key, const std::string& path, const std::string& ptr) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_string()) fail_at(path, ptr + "/" + key, "not a string; expected \"YYYY-MM-DD HH:MM:SS\", null or \"None\"");
  const auto& s = it->get_ref<const std::string&>();
  if (s.empty() || s == "None") return std::nullopt;
  auto t = to_naive_time(s);
  if (!t) fail_at(path, ptr + "/" + key, "is '" + s + "'; expected \"YYYY-MM-DD HH:MM:SS\"");
  return t;
}

std::string str_field(const json& obj, const char* key, const std::string& path, const std::string& ptr) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return {};
  if (!it->is_string()) fail_at(path, ptr + "/" + key, "not a string; expected a string");
  return it->get<std::string>();
}

std::optional<int64_t> yarn_id(const std::string& jobid) {
  // application_<ts>_<counter>
  constexpr std::string_view kPrefix = "application_";
  if (jobid.rfind(kPrefix, 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(jobid).substr(kPrefix.size());
  const size_t us = rest.find('_');
  if (us == std::string_view::npos) return std::nullopt;
  auto ts = to_int(rest.substr(0, us));
  auto n = to_int(rest.substr(us + 1));
  if (!ts || !n || *ts < 0 || *n < 0 || *n >= 1000000 || *ts > 9'000'000'000'000) return std::nullopt;
  return *ts * 1000000 + *n;
}

}  // namespace

TraceData read_philly(input::LineSource& src, const ReadOptions& opts) {
  const std::string& path = src.path();
  JobBuilder b(path, Format::Philly, opts);
  b.where_is_index();
  const std::string_view buf = src.rest();  // one JSON document, at most input::kMaxDocumentBytes
  json doc;
  try {
    doc = json::parse(buf.begin(), buf.end());
  } catch (const json::parse_error& e) {
    // Report the line of the byte offset where parsing failed.
    const size_t at = std::min<size_t>(e.byte, buf.size());
    const size_t line = 1 + static_cast<size_t>(std::count(buf.begin(), buf.begin() + static_cast<long>(at), '\n'));
    std::string what = e.what();
    if (auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    fail(path, line, what + "; expected a JSON array of Philly job objects");
  } catch (const json::out_of_range& e) {  // a number beyond a double ("1e400")
    fail(path, json_overflow_line(buf, e.what()), "number out of range; expected a number a double can hold");
  }
  if (!doc.is_array()) fail_at(path, "/", "not an array; expected the cluster_job_log JSON array of jobs");
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& job = doc[i];
    const std::string ptr = fmt::format("/{}", i);  // (GCC 12 -Wrestrict false positive on "/" + to_string)
    if (!job.is_object()) fail_at(path, ptr, "not an object; expected a job object");
    b.row();
    auto submit = philly_time(job, "submitted_time", path, ptr);
    if (!submit) fail_at(path, ptr + "/submitted_time", "missing; expected the job's submit time");
    b.note_submit(*submit);
    auto ait = job.find("attempts");
    if (ait != job.end() && !ait->is_null() && !ait->is_array())
      fail_at(path, ptr + "/attempts", "not an array; expected a list of attempts");
    if (ait == job.end() || ait->is_null() || ait->empty()) {
      b.skip("no_attempts");
      continue;
    }
    const json& att = *ait;
    for (size_t a = 0; a < att.size(); ++a)
      if (!att[a].is_object()) fail_at(path, ptr + "/attempts/" + std::to_string(a), "not an object; expected an attempt");
    const std::string a0 = ptr + "/attempts/0", al = ptr + "/attempts/" + std::to_string(att.size() - 1);
    auto start = philly_time(att[0], "start_time", path, a0);
    auto end = philly_time(att.back(), "end_time", path, al);
    if (!start) {
      b.skip("never_started");
      continue;
    }
    if (!end) {
      b.skip("censored_still_running");
      continue;
    }
    if (*end < *start) {
      b.skip("end_before_start");
      continue;
    }
    int64_t gpus = 0;
    if (auto d = att[0].find("detail"); d != att[0].end() && !d->is_null()) {
      if (!d->is_array()) fail_at(path, a0 + "/detail", "not an array; expected a list of {ip, gpus}");
      for (size_t k = 0; k < d->size(); ++k) {
        const json& srv = (*d)[k];
        auto g = srv.is_object() ? srv.find("gpus") : srv.end();
        if (!srv.is_object() || g == srv.end() || !g->is_array())
          fail_at(path, a0 + "/detail/" + std::to_string(k), "expected an object with a \"gpus\" list");
        gpus += static_cast<int64_t>(g->size());
      }
    }
    JobSpec j;
    const std::string jobid = str_field(job, "jobid", path, ptr);
    if (auto id = yarn_id(jobid)) {
      j.id = *id;
    } else {
      j.id = static_cast<int64_t>(i + 1);
      b.adjust("id_from_position");
    }
    j.submit_s = *submit;
    j.recorded_start_s = *start;
    j.runtime_s = *end - *start;
    j.gpus = static_cast<int32_t>(gpus);
    j.time_limit_s = JobBuilder::kUnknownLimit;
    j.user = b.intern(str_field(job, "user", path, ptr));
    j.account = j.partition = b.intern(str_field(job, "vc", path, ptr));
    if (gpus > 0 && att.size() > 1) b.adjust("multi_attempt_runtime_spans_attempts");
    b.add(j, i);
  }
  return b.finish(/*shift_epoch=*/true);
}

}  // namespace floorsim::traces::detail
