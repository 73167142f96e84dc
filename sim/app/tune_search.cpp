// The search of `floorsim tune` (tune.hpp): batches of points run on a pool of threads, the
// seeded random phase, coordinate refinement, and the held-out comparison of the baseline with
// the best point.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "sim/app/runner.hpp"
#include "sim/app/scenario.hpp"
#include "sim/app/tune.hpp"
#include "sim/core/io.hpp"

namespace floorsim::app::tune {

namespace {

using Point = std::vector<int64_t>;

// What one run of a point gives: its score and the figures the report shows.
struct Eval {
  Score score;
  double mean_wait_s = 0, p99_wait_s = 0, makespan_s = 0;
  size_t jobs = 0;
};

json num(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

Eval evaluate(const TuneSpec& s, const Point& p, bool holdout, Warnings& warnings) {
  json doc = holdout ? s.holdout_doc : s.base_doc;
  for (size_t i = 0; i < s.params.size(); ++i) doc["scheduler"][s.params[i].name] = p[i];
  Scenario sc = load_scenario(doc, holdout ? s.holdout_file : s.base_file, holdout ? s.holdout_dir : s.base_dir, &warnings);
  Eval e;
  e.jobs = keep_window(sc.workload, holdout ? s.holdout_window : s.tune_window);
  RunOptions ro;
  ro.render_csv = false;
  ro.warnings = &warnings;
  const json m = run_scenario(sc, ro).metrics;
  e.score.unstarted = m["jobs_by_state"].value("PENDING", int64_t{0});
  e.score.value = objective_value(s.objective, m);
  const Objective mean{Metric::MeanWait, ""}, p99{Metric::P99Wait, ""}, span{Metric::Makespan, ""};
  e.mean_wait_s = objective_value(mean, m);
  e.p99_wait_s = objective_value(p99, m);
  e.makespan_s = objective_value(span, m);
  return e;
}

// Runs `points` on up to `threads` threads; results by point, so the order of finishing does
// not matter. The first error (by point) is rethrown. Warnings go to `warnings` in point order.
std::vector<Eval> evaluate_batch(const TuneSpec& s, const std::vector<Point>& points, bool holdout, unsigned threads,
                                 Warnings& warnings) {
  std::vector<Eval> out(points.size());
  std::vector<Warnings> raised(points.size());
  std::vector<std::exception_ptr> errors(points.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < points.size();) {
      try {
        out[k] = evaluate(s, points[k], holdout, raised[k]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, points.size()))));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (const auto& w : raised)
    for (const auto& m : w.list()) warnings.add(m);
  return out;
}

struct Record {
  std::string phase;
  Point point;
  Eval eval;
};

// The search state: every point evaluated (once), in the order the search asked for them.
class Search {
 public:
  Search(const TuneSpec& s, unsigned threads, Warnings& warnings) : s_(s), threads_(threads), warnings_(warnings) {}

  // Evaluates the points not seen yet (one batch); returns the index of each point's record.
  std::vector<size_t> run(const std::vector<Point>& pts, const std::string& phase) {
    std::vector<Point> fresh;
    for (const auto& p : pts)
      if (!seen_.count(p) && std::find(fresh.begin(), fresh.end(), p) == fresh.end()) fresh.push_back(p);
    const std::vector<Eval> ev = evaluate_batch(s_, fresh, false, threads_, warnings_);
    for (size_t k = 0; k < fresh.size(); ++k) {
      seen_[fresh[k]] = records_.size();
      records_.push_back({phase, fresh[k], ev[k]});
    }
    std::vector<size_t> idx;
    for (const auto& p : pts) idx.push_back(seen_.at(p));
    return idx;
  }
  // The best of `idx` (the first on ties), or `best` when none is strictly better.
  size_t pick(size_t best, const std::vector<size_t>& idx) const {
    for (size_t i : idx)
      if (better(s_.objective, records_[i].eval.score, records_[best].eval.score)) best = i;
    return best;
  }
  const std::vector<Record>& records() const { return records_; }

 private:
  const TuneSpec& s_;
  unsigned threads_;
  Warnings& warnings_;
  std::map<Point, size_t> seen_;
  std::vector<Record> records_;
};

// Coordinate refinement from `best`: each level tries every parameter moved by +-step, takes the
// best improving move until none improves, then halves the step.
size_t refine(const TuneSpec& s, Search& search, size_t best) {
  std::vector<double> step;
  for (const auto& p : s.params) step.push_back(static_cast<double>(p.max - p.min) / 4);
  for (size_t level = 0; level < s.rounds; ++level) {
    for (size_t iter = 0; iter < 4 * s.params.size() + 4; ++iter) {  // a bound; each accepted move strictly improves
      std::vector<Point> moves;
      const Point from = search.records()[best].point;
      for (size_t i = 0; i < s.params.size(); ++i) {
        const int64_t d = std::max<int64_t>(1, std::llround(step[i]));
        for (const int64_t sign : {-1, 1}) {
          Point q = from;
          q[i] = std::clamp<int64_t>(from[i] + sign * d, s.params[i].min, s.params[i].max);
          if (q != from) moves.push_back(q);
        }
      }
      if (moves.empty()) break;
      const size_t next = search.pick(best, search.run(moves, fmt::format("refine {}", level + 1)));
      if (next == best) break;
      best = next;
    }
    for (auto& st : step) st /= 2;
  }
  return best;
}

json params_json(const TuneSpec& s, const Point& p) {
  json j = json::object();
  for (size_t i = 0; i < s.params.size(); ++i) j[s.params[i].name] = p[i];
  return j;
}

json eval_json(const Eval& e) {
  return {{"jobs", e.jobs}, {"unstarted", e.score.unstarted}, {"objective", num(e.score.value)}, {"mean_wait_s", num(e.mean_wait_s)},
          {"p99_wait_s", num(e.p99_wait_s)}, {"makespan_s", num(e.makespan_s)}};
}

// Relative change of the tuned value against the baseline (negative: lower).
json change(double base, double tuned) { return base != 0 && std::isfinite(base) && std::isfinite(tuned) ? json((tuned - base) / base) : json(nullptr); }

std::string fmt_num(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string("-"); }
std::string fmt_pct(const json& c) { return c.is_number() ? fmt::format("{:+.1f}%", 100 * c.get<double>()) : std::string("-"); }

std::string summary_table(const TuneSpec& s, const json& doc) {
  std::string t = fmt::format("tune {}: {} points searched (seed {}), objective {}{}\n", s.name, doc["evaluations"].size(), s.seed,
                              doc["tune"]["objective"]["metric"].get<std::string>(), s.objective.klass.empty() ? "" : " of class " + s.objective.klass);
  t += "part       figure        baseline      tuned         change\n";
  for (const char* part : {"tune", "holdout"})
    for (const char* f : {"objective", "mean_wait_s", "p99_wait_s", "makespan_s"}) {
      const json& b = doc["baseline"][part][f];
      const json& x = doc["best"][part][f];
      t += fmt::format("{:<10} {:<13} {:<13} {:<13} {}\n", part, f, fmt_num(b.is_number() ? b.get<double>() : NAN),
                       fmt_num(x.is_number() ? x.get<double>() : NAN), fmt_pct(doc["change"][part][f]));
    }
  return t;
}

}  // namespace

Result run_tune(const TuneSpec& s, const Options& o) {
  Warnings raised = s.warnings;  // printed when the tune file was loaded; the runs' others follow
  Search search(s, o.threads, raised);
  std::vector<Point> first = {s.baseline};
  for (auto& p : random_points(s.params, s.samples, s.seed)) first.push_back(std::move(p));
  // The baseline is record 0 (points are recorded in the order asked), so ties keep it.
  const std::vector<size_t> idx = search.run(first, "random");
  size_t best = search.pick(idx[0], idx);
  best = refine(s, search, best);

  const Point& bp = search.records()[best].point;
  const std::vector<Eval> held = evaluate_batch(s, {s.baseline, bp}, true, o.threads, raised);
  const Eval& base_tune = search.records()[idx[0]].eval;
  const Eval& best_tune = search.records()[best].eval;

  Result r;
  json doc = {{"format", kFormat}, {"tune", s.resolved}};
  doc["split"] = s.tune_window.all() ? json{{"tune", s.base_file}, {"holdout", s.holdout_file}}
                                     : json{{"tune", fmt::format("jobs submitted before {} s", s.tune_window.to_s)},
                                            {"holdout", fmt::format("jobs submitted at or after {} s", s.holdout_window.from_s)}};
  doc["baseline"] = {{"params", params_json(s, s.baseline)}, {"tune", eval_json(base_tune)}, {"holdout", eval_json(held[0])}};
  doc["best"] = {{"params", params_json(s, bp)}, {"tune", eval_json(best_tune)}, {"holdout", eval_json(held[1])}};
  for (const char* part : {"tune", "holdout"})
    for (const char* f : {"objective", "mean_wait_s", "p99_wait_s", "makespan_s"}) {
      const json& b = doc["baseline"][part][f];
      const json& x = doc["best"][part][f];
      doc["change"][part][f] = b.is_number() && x.is_number() ? change(b.get<double>(), x.get<double>()) : json(nullptr);
    }
  json evals = json::array();
  r.csv = "index,phase";
  for (const auto& p : s.params) r.csv += "," + p.name;
  r.csv += ",unstarted,objective,mean_wait_s,p99_wait_s,makespan_s\n";
  for (size_t i = 0; i < search.records().size(); ++i) {
    const Record& rec = search.records()[i];
    evals.push_back({{"index", i}, {"phase", rec.phase}, {"params", params_json(s, rec.point)}, {"result", eval_json(rec.eval)}});
    r.csv += fmt::format("{},{}", i, rec.phase);
    for (int64_t v : rec.point) r.csv += fmt::format(",{}", v);
    r.csv += fmt::format(",{},{},{},{},{}\n", rec.eval.score.unstarted, fmt_num(rec.eval.score.value), fmt_num(rec.eval.mean_wait_s),
                         fmt_num(rec.eval.p99_wait_s), fmt_num(rec.eval.makespan_s));
  }
  doc["evaluations"] = evals;
  doc["best_index"] = best;
  r.table = summary_table(s, doc);
  r.doc = std::move(doc);
  r.warnings.assign(raised.list().begin() + static_cast<std::ptrdiff_t>(s.warnings.list().size()), raised.list().end());
  return r;
}

}  // namespace floorsim::app::tune
