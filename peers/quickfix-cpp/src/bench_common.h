// Peregrine peer harness support: argument parsing, timing method, statistics and JSON output
// (codec_bench, typed_bench), and what the two-process harnesses share (roundtrip, stream): a
// waitable flag, FIX rendering. Our own code; QuickFIX is only used by the callers.
//
// Method (identical across engines):
//   warm-up  : `warmup` untimed operations (discarded)
//   mean     : one batch of `iters` operations timed as a whole, wall time / iters
//   latency  : a second loop of `iters` operations each timed with std::chrono::steady_clock,
//              minus the calibrated median cost of an empty timer pair (clamped at 0);
//              min/p50/p90/p99/p99.9/max from the sorted, preallocated sample array
//              (nearest-rank percentiles: value at index ceil(q*n)-1)
//   throughput_per_s = 1e9 / mean
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// A value the optimiser cannot drop: every case folds what it read or wrote into it, and the
// total is printed to stderr at exit.
static volatile uint64_t g_sink_volatile = 0;
static uint64_t g_sink = 0;
inline void sink(uint64_t v) { g_sink = g_sink * 31 + v; }
inline void publish_sink() { g_sink_volatile = g_sink; }

// A flag a thread can wait for with a timeout (logon, logout, the end of a run).
class Event {
 public:
  void set() {
    std::lock_guard<std::mutex> l(m_);
    set_ = true;
    cv_.notify_all();
  }
  // True once set; false after `ms` milliseconds without it.
  bool wait(int ms) {
    std::unique_lock<std::mutex> l(m_);
    return cv_.wait_for(l, std::chrono::milliseconds(ms), [&] { return set_; });
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool set_ = false;
};

struct Args {
  std::vector<std::string> cases;  // empty = all
  uint64_t iters = 1000000;
  uint64_t warmup = 100000;
  std::string dict;
};

inline void usage(const char* prog, const std::vector<std::string>& all) {
  std::fprintf(stderr,
               "usage: %s --dict PATH/FIX44.xml [--cases a,b,c] [--iters N] [--warmup N]\n"
               "cases:",
               prog);
  for (const auto& c : all) std::fprintf(stderr, " %s", c.c_str());
  std::fprintf(stderr, "\n");
}

inline Args parse_args(int argc, char** argv, const std::vector<std::string>& all_cases) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "missing value for %s\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--cases") {
      std::string v = val();
      size_t s = 0;
      while (s <= v.size()) {
        size_t e = v.find(',', s);
        if (e == std::string::npos) e = v.size();
        if (e > s) a.cases.push_back(v.substr(s, e - s));
        s = e + 1;
      }
    } else if (k == "--iters") {
      a.iters = std::strtoull(val().c_str(), nullptr, 10);
    } else if (k == "--warmup") {
      a.warmup = std::strtoull(val().c_str(), nullptr, 10);
    } else if (k == "--dict") {
      a.dict = val();
    } else if (k == "--help" || k == "-h") {
      usage(argv[0], all_cases);
      std::exit(0);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", k.c_str());
      usage(argv[0], all_cases);
      std::exit(2);
    }
  }
  if (a.cases.empty()) a.cases = all_cases;
  for (const auto& c : a.cases) {
    if (std::find(all_cases.begin(), all_cases.end(), c) == all_cases.end()) {
      std::fprintf(stderr, "unknown case %s\n", c.c_str());
      usage(argv[0], all_cases);
      std::exit(2);
    }
  }
  if (a.dict.empty()) {
    std::fprintf(stderr, "--dict PATH (FIX44.xml) is required\n");
    usage(argv[0], all_cases);
    std::exit(2);
  }
  if (a.iters == 0) a.iters = 1;
  return a;
}

// Median cost of an empty timer pair (two steady_clock reads), in ns.
inline int64_t calibrate_timer_overhead() {
  const size_t n = 200000;
  std::vector<int64_t> s(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t t0 = now_ns();
    int64_t t1 = now_ns();
    s[i] = t1 - t0;
  }
  std::sort(s.begin(), s.end());
  return s[n / 2];
}

struct Result {
  double mean = 0;
  int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
};

inline int64_t pct(const std::vector<int64_t>& sorted, double q) {
  size_t n = sorted.size();
  size_t idx = (size_t)std::ceil(q * (double)n);
  if (idx == 0) idx = 1;
  if (idx > n) idx = n;
  return sorted[idx - 1];
}

// Runs warm-up, the timed batch and the per-operation loop for `op`.
// `op` is a template parameter so the call is inlined into the loops.
template <class Op>
Result measure(Op&& op, uint64_t warmup, uint64_t iters, int64_t overhead,
               std::vector<int64_t>& samples) {
  for (uint64_t i = 0; i < warmup; ++i) op();
  Result r;
  int64_t t0 = now_ns();
  for (uint64_t i = 0; i < iters; ++i) op();
  int64_t t1 = now_ns();
  r.mean = (double)(t1 - t0) / (double)iters;
  samples.resize(iters);  // preallocated by the caller; no reallocation here
  for (uint64_t i = 0; i < iters; ++i) {
    int64_t a = now_ns();
    op();
    int64_t b = now_ns();
    int64_t d = (b - a) - overhead;
    samples[i] = d < 0 ? 0 : d;
  }
  std::sort(samples.begin(), samples.end());
  r.min = samples.front();
  r.p50 = pct(samples, 0.50);
  r.p90 = pct(samples, 0.90);
  r.p99 = pct(samples, 0.99);
  r.p999 = pct(samples, 0.999);
  r.max = samples.back();
  return r;
}

inline std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if ((unsigned char)c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", (unsigned char)c);
          o += buf;
        } else {
          o += c;
        }
    }
  }
  return o;
}

inline void print_json(const char* engine, const std::string& case_name, uint64_t iters,
                       uint64_t warmup, int64_t overhead, const Result& r,
                       const std::string& settings) {
  std::printf(
      "{\"engine\":\"%s\",\"case\":\"%s\",\"iters\":%llu,\"mean\":%.1f,\"min\":%lld,"
      "\"p50\":%lld,\"p90\":%lld,\"p99\":%lld,\"p999\":%lld,\"max\":%lld,"
      "\"throughput_per_s\":%.0f,\"warmup\":%llu,\"timer_overhead_ns\":%lld,"
      "\"settings\":\"%s\"}\n",
      engine, case_name.c_str(), (unsigned long long)iters, r.mean, (long long)r.min,
      (long long)r.p50, (long long)r.p90, (long long)r.p99, (long long)r.p999, (long long)r.max,
      r.mean > 0 ? 1e9 / r.mean : 0.0, (unsigned long long)warmup, (long long)overhead,
      json_escape(settings).c_str());
  std::fflush(stdout);
}

// ---- FIX helpers (harness side, run once at startup) --------------------------------------

constexpr char SOH = '\x01';

// Builds a complete FIX message from "35=..|..." body fields ('|' = SOH), computing
// BodyLength(9) and CheckSum(10).
inline std::string frame(const std::string& begin, const std::string& body_pipes) {
  std::string body = body_pipes;
  std::replace(body.begin(), body.end(), '|', SOH);
  std::string m = "8=" + begin + SOH + "9=" + std::to_string(body.size()) + SOH + body;
  unsigned sum = 0;
  for (unsigned char c : m) sum += c;
  char ck[8];
  std::snprintf(ck, sizeof ck, "%03u", sum % 256);
  m += "10=";
  m += ck;
  m += SOH;
  return m;
}

inline std::string pipes(std::string s) {
  std::replace(s.begin(), s.end(), SOH, '|');
  return s;
}

// Splits a FIX message into "tag=value" fields.
inline std::vector<std::string> fields_of(const std::string& m) {
  std::vector<std::string> out;
  size_t s = 0;
  while (s < m.size()) {
    size_t e = m.find(SOH, s);
    if (e == std::string::npos) e = m.size();
    out.push_back(m.substr(s, e - s));
    s = e + 1;
  }
  return out;
}

// Same bytes, or the same field set with 8/9/35 leading and 10 last (an engine that imposes
// its own field order). Prints both to stderr when the order differs.
inline bool same_message(const std::string& produced, const std::string& reference,
                         const char* what) {
  if (produced == reference) return true;
  auto a = fields_of(produced), b = fields_of(reference);
  bool ok = a.size() == b.size() && a.size() >= 4 && a[0] == b[0] && a[1] == b[1] &&
            a[2] == b[2] && a.back() == b.back();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ok = ok && a == b;
  std::fprintf(stderr, "[%s] engine field order differs from the reference:\n  produced:  %s\n"
               "  reference: %s\n  same field set: %s\n",
               what, pipes(produced).c_str(), pipes(reference).c_str(), ok ? "yes" : "NO");
  return ok;
}

[[noreturn]] inline void fail(const std::string& why) {
  std::fprintf(stderr, "FATAL: %s\n", why.c_str());
  std::exit(1);
}

// The engine's data dictionary (`Dictionary`, built from a path) from `path`; one that
// cannot be loaded is fatal.
template <class Dictionary>
Dictionary load_dictionary(const std::string& path) {
  try {
    return Dictionary(path);
  } catch (std::exception& e) {
    fail(std::string("cannot load data dictionary: ") + e.what());
  }
}

// What a case reports: its measured result and the settings it ran with.
struct Timed {
  Result result;
  std::string settings;
};

// Runs the selected cases in turn: calibrates the timer, then for each case calls
// `run_case(name, time)` -- `time(op)` measures `op` (see measure) -- and prints its JSON line
// with `settings + common` (a case that throws is fatal); publishes the sink last.
template <class RunCase>
void run_cases(const char* engine, const Args& args, const std::string& common,
               RunCase&& run_case) {
  const int64_t overhead = calibrate_timer_overhead();
  std::fprintf(stderr, "timer overhead (median empty steady_clock pair): %lld ns\n",
               (long long)overhead);
  std::vector<int64_t> samples;
  samples.reserve(args.iters);
  auto time = [&](auto&& op) { return measure(op, args.warmup, args.iters, overhead, samples); };

  for (const auto& c : args.cases) {
    std::fprintf(stderr, "running %s: warmup %llu, iters %llu\n", c.c_str(),
                 (unsigned long long)args.warmup, (unsigned long long)args.iters);
    Timed t;
    try {
      t = run_case(c, time);
    } catch (std::exception& e) {
      fail("case " + c + " threw: " + e.what());
    }
    print_json(engine, c, args.iters, args.warmup, overhead, t.result, t.settings + common);
  }
  publish_sink();
  std::fprintf(stderr, "sink: %llu\n", (unsigned long long)g_sink);
}

}  // namespace bench
