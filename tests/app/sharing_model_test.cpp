// GPU sharing request model against closed forms: M/D/1 and M/G/1 (Pollaczek-Khinchine) mean
// waits for exclusive service, and the residual-life term E[K^2] / (2 E[K]) for a request that
// time-slices behind batch kernels of known length; monotonicity in the interference factors.
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/app/sharing_model.hpp"

using namespace floorsim;
using namespace floorsim::app::sharing;

namespace {

// Poisson arrivals at `rate` with service times drawn from `svc`.
std::vector<Request> poisson(size_t n, double rate, const Dist& svc, uint64_t seed) {
  traces::Rng rng(seed, 1);
  std::vector<Request> out;
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += rng.exponential() / rate;
    out.push_back({t, svc.sample(rng)});
  }
  return out;
}

double mean_queue(const std::vector<Served>& s) { return latency_stats(s, 0, kNever, 1e9).mean_queue_s; }

// One dedicated GPU: an M/G/1 queue. Pollaczek-Khinchine: Wq = lambda E[S^2] / (2 (1 - rho)).
double pk_wait(double rate, const Dist& svc) { return rate * svc.second_moment() / (2 * (1 - rate * svc.mean_s)); }

Pool dedicated_one() {
  Pool p;
  p.dedicated_gpus = 1;
  return p;
}

}  // namespace

TEST_CASE("sharing: M/D/1 and M/G/1 mean waits match Pollaczek-Khinchine") {
  const double rate = 0.5;
  struct Case {
    const char* name;
    Dist svc;
  } cases[] = {{"M/D/1", {Dist::Kind::Deterministic, 1.0, 0}},
               {"M/M/1", {Dist::Kind::Exponential, 1.0, 0}},
               {"M/U/1 (jitter 0.8)", {Dist::Kind::Uniform, 1.0, 0.8}}};
  for (const auto& c : cases) {
    const auto served = serve(poisson(400000, rate, c.svc, 11), dedicated_one(), 3);
    const double sim = mean_queue(served), formula = pk_wait(rate, c.svc);
    std::printf("sharing closed form %s rho 0.5: simulated Wq %.4f s, formula %.4f s\n", c.name, sim, formula);
    CHECK(sim == Approx(formula).epsilon(0.04));
  }
}

TEST_CASE("sharing: time-slicing behind batch kernels waits the residual life plus a switch") {
  // One pool GPU that always holds batch work; requests sparse enough never to queue.
  Pool pool;
  pool.gpus = {{{0, 1e9}}};
  pool.params.mode = Mode::TimeSlicing;
  pool.params.context_switch_s = 0.0002;
  pool.params.slice_s = 1;  // longer than any request: no extra slices
  const Dist svc{Dist::Kind::Deterministic, 0.001, 0};
  for (const Dist& k : {Dist{Dist::Kind::Deterministic, 0.02, 0}, Dist{Dist::Kind::Exponential, 0.02, 0},
                        Dist{Dist::Kind::Uniform, 0.02, 0.5}}) {
    pool.params.kernel = k;
    const auto served = serve(poisson(200000, 0.5, svc, 5), pool, 9);
    const auto st = latency_stats(served, 0, kNever, 1e9);
    const double formula = k.second_moment() / (2 * k.mean_s) + pool.params.context_switch_s;
    std::printf("sharing closed form time-slicing kernel mean 0.02 s kind %d: simulated interference %.6f s, E[K^2]/2E[K] + switch %.6f s\n",
                static_cast<int>(k.kind), st.mean_interference_s, formula);
    CHECK(st.mean_queue_s < 0.03 * formula);  // sparse: almost never behind another request
    CHECK(st.mean_interference_s == Approx(formula).epsilon(0.02));
  }
}

TEST_CASE("sharing: exclusive service waits for the batch to leave the GPU") {
  Pool pool;
  pool.gpus = {{{10, 20}, {25, 40}}};
  const std::vector<Request> r{{5, 2}, {12, 3}, {21, 5}};
  const auto s = serve(r, pool, 1);
  REQUIRE(s.size() == 3);
  CHECK(s[0].queue_s == 0);       // 5..7 fits before the batch at 10
  CHECK(s[1].queue_s == 8);       // 12: batch until 20, the gap 20..25 holds 3 s
  CHECK(s[2].queue_s == 19);      // 21: 23..25 is too short for 5 s; after 40
  CHECK(s[2].interference_s == 0);
}

TEST_CASE("sharing: more interference never lowers p99") {
  Pool pool;
  pool.gpus = {{{0, 3000}, {5000, 9000}}, {{1000, 8000}}};
  const auto req = poisson(20000, 2.0, Dist{Dist::Kind::Exponential, 0.4, 0}, 21);
  SECTION("mps request slowdown") {
    pool.params.mode = Mode::Mps;
    double last = 0;
    for (double f : {1.0, 1.1, 1.3, 1.6, 2.0}) {
      pool.params.mps_request_slowdown = f;
      const double p99 = latency_stats(serve(req, pool, 4), 0, kNever, 1).p99_s;
      CHECK(p99 >= last);
      last = p99;
    }
  }
  SECTION("time-slicing kernel length") {
    pool.params.mode = Mode::TimeSlicing;
    pool.params.context_switch_s = 0.0001;
    double last = 0;
    for (double k : {0.001, 0.01, 0.05, 0.2}) {
      pool.params.kernel = {Dist::Kind::Deterministic, k, 0};
      const double p99 = latency_stats(serve(req, pool, 4), 0, kNever, 1).p99_s;
      CHECK(p99 >= last);
      last = p99;
    }
  }
  SECTION("mig: a smaller instance is slower but undisturbed") {
    pool.params.mode = Mode::Mig;
    double last = 0;
    for (double g : {7.0, 4.0, 3.0, 2.0}) {
      pool.params.mig_sm_fraction = g / 7;
      const auto s = serve(req, pool, 4);
      const auto st = latency_stats(s, 0, kNever, 1);
      CHECK(st.mean_interference_s == 0);
      CHECK(st.p99_s >= last);
      last = st.p99_s;
    }
  }
}

TEST_CASE("sharing: batch stretch and the peak window") {
  ModeParams p;
  CHECK(batch_stretch(p, 1, 0.5) == 1);
  p.mode = Mode::Mig;
  p.mig_sm_fraction = 3.0 / 7;
  CHECK(batch_stretch(p, 1, 0.5) == Approx(7.0 / 4));
  p.mode = Mode::Mps;
  p.mps_request_slowdown = 1;
  p.mps_batch_slowdown = 1.5;
  CHECK(batch_stretch(p, 0.5, 1) == Approx(1.25));
  const std::vector<BusyTimeline> g{{{0, 100}, {200, 300}}, {{250, 400}}};
  const Interval w = peak_window(g, 100);
  CHECK(w.from_s == 200);
  CHECK(w.to_s == 300);
}
