// BENCHMARKS.md section 5, part 1 (streaming one way), QuickFIX C++ 1.15.1 side.
//
//   build/stream --role receiver|sender --store memory|file --port P --dir DIR --dict FIX44.xml
//                --seconds S
//
// sender   (initiator CLIENT->VENUE): Session::send of NewOrderSingles (ClOrdID unique, Symbol,
//          Side, TransactTime, OrderQty, OrdType, Price; no ClientID(109), which FIX44.xml does
//          not define for 35=D and full validation would reject, as in Peregrine's sender) as
//          fast as the session layer allows for S + 1.2 seconds, then Logout; its loop
//          allocates nothing per message (reused order and fields, ClOrdIDs C1, C2, ... written
//          in place, TransactTime formatted at most once per ms). It runs on a
//          ThreadedSocketInitiator because that connection writes with a blocking send(2):
//          when the receiver falls behind, Session::send blocks in the kernel (TCP flow
//          control), so the sender's memory is bounded by the socket buffer. The default
//          SocketInitiator's SocketConnection instead appends every message that does not fit
//          to an unbounded std::deque, and QuickFIX C++ has no public way to read its size.
// receiver (acceptor VENUE->CLIENT, the default single-threaded SocketAcceptor): validates every
//          message with the FIX44 dictionary (UseDataDictionary=Y: Session::next validates before
//          fromApp), checks MsgSeqNum = previous + 1 (admin messages included), counts messages
//          from the first application message and prints one JSON line with the rate over
//          [1 s, 1 s + S), percentiles over 100 ms intervals. Exit 1 on a gap or a reject.
// Both: MemoryStoreFactory or FileStoreFactory (QuickFIX C++'s FileStore writes and fflush()es
// each record, never fsyncs: there is no FileStoreSync setting), no log factory (no logging),
// SocketNodelay=Y, ResetOnLogon=Y, HeartBtInt=30.
#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/MessageStore.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/ThreadedSocketInitiator.h>
#include <quickfix/fix44/NewOrderSingle.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

using Clock = std::chrono::steady_clock;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

// Wall-clock milliseconds since the epoch (when TransactTime must be formatted again).
int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Writes `prefix` and `n` in decimal into `out` in place: out's capacity must already hold 21
// characters, so assign() never reallocates.
void set_id(std::string& out, char prefix, uint64_t n) {
  char digits[20];
  int len = 0;
  do {
    digits[len++] = (char)('0' + n % 10);
    n /= 10;
  } while (n != 0);
  char buf[21];
  buf[0] = prefix;
  for (int i = 0; i < len; ++i) buf[1 + i] = digits[len - 1 - i];
  out.assign(buf, (size_t)len + 1);
}

const int64_t kSecond = 1000000000LL;
const int64_t kInterval = 100000000LL;  // 100 ms

const char* kUsage =
    "usage: stream --role receiver|sender --store memory|file [--logs Y|N] --port P --dir DIR"
    " --dict FIX44.xml --seconds S\n";

struct Args {
  std::string role, store, dir, dict;
  bool logs = false;  // --logs Y: FileLogFactory in DIR/log, as production runs
  int port = 0;
  int seconds = 0;
};

Args parse(int argc, char** argv) {
  std::map<std::string, std::string> kv;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      std::fputs(kUsage, stderr);
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value for %s\n%s", k.c_str(), kUsage);
      std::exit(2);
    }
    kv[k] = argv[++i];
  }
  Args a;
  const char* keys[] = {"--role", "--store", "--port", "--dir", "--dict", "--seconds"};
  for (const auto& p : kv) {
    if (p.first == "--logs") continue;  // optional
    if (std::find(std::begin(keys), std::end(keys), p.first) == std::end(keys)) {
      std::fprintf(stderr, "unknown argument %s\n%s", p.first.c_str(), kUsage);
      std::exit(2);
    }
  }
  for (const char* k : keys) {
    if (!kv.count(k)) {
      std::fprintf(stderr, "%s is required\n%s", k, kUsage);
      std::exit(2);
    }
  }
  a.role = kv["--role"];
  a.store = kv["--store"];
  a.dir = kv["--dir"];
  a.dict = kv["--dict"];
  a.port = std::atoi(kv["--port"].c_str());
  a.seconds = std::max(1, std::atoi(kv["--seconds"].c_str()));
  if (a.role != "receiver" && a.role != "sender") {
    std::fprintf(stderr, "--role must be receiver or sender\n");
    std::exit(2);
  }
  if (a.store != "memory" && a.store != "file") {
    std::fprintf(stderr, "--store must be memory or file\n");
    std::exit(2);
  }
  if (kv.count("--logs")) {
    if (kv["--logs"] != "Y" && kv["--logs"] != "N") {
      std::fprintf(stderr, "--logs must be Y or N\n");
      std::exit(2);
    }
    a.logs = kv["--logs"] == "Y";
  }
  return a;
}

// One session section, built in code.
FIX::SessionSettings settings_for(const Args& a, const FIX::SessionID& id, bool receiver) {
  FIX::Dictionary d;
  d.setString("ConnectionType", receiver ? "acceptor" : "initiator");
  d.setString("StartTime", "00:00:00");  // equal start and end: the session never ends
  d.setString("EndTime", "00:00:00");
  d.setInt("HeartBtInt", 30);
  d.setString("ResetOnLogon", "Y");
  d.setString("SocketNodelay", "Y");
  d.setString("UseDataDictionary", "Y");
  d.setString("DataDictionary", a.dict);
  d.setString("FileStorePath", a.dir);
  if (a.logs) d.setString("FileLogPath", a.dir + "/log");
  if (receiver) {
    d.setInt("SocketAcceptPort", a.port);
  } else {
    d.setString("SocketConnectHost", "127.0.0.1");
    d.setInt("SocketConnectPort", a.port);
    d.setInt("ReconnectInterval", 1);
  }
  FIX::SessionSettings s;
  if (a.logs) {
    // The connector's own log (FileLogFactory::create()) reads FileLogPath from [DEFAULT].
    FIX::Dictionary defaults;
    defaults.setString("FileLogPath", a.dir + "/log");
    s.set(defaults);
  }
  s.set(id, d);
  return s;
}

int msg_seq_num(const FIX::Message& m) {
  return std::atoi(m.getHeader().getField(FIX::FIELD::MsgSeqNum).c_str());
}

// ---- receiver ------------------------------------------------------------------------------

class Receiver : public FIX::Application {
 public:
  explicit Receiver(int seconds) : window_ns_(seconds * kSecond), intervals_(seconds * 10, 0) {}

  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID& id) override {
    std::fprintf(stderr, "receiver: logged on %s\n", id.toString().c_str());
  }
  void onLogout(const FIX::SessionID& id) override {
    std::fprintf(stderr, "receiver: logged out %s\n", id.toString().c_str());
    std::lock_guard<std::mutex> l(mu_);
    logged_out_ = true;
    cv_.notify_all();
  }
  void toAdmin(FIX::Message& m, const FIX::SessionID&) override {
    if (m.getHeader().getField(FIX::FIELD::MsgType) == "3") {
      std::lock_guard<std::mutex> l(mu_);
      fail_locked("receiver rejected a message: " + bench::pipes(m.toString()));
    }
  }
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::RejectLogon) override {
    int seq = msg_seq_num(m);
    std::lock_guard<std::mutex> l(mu_);
    if (last_seq_ != 0 && seq != last_seq_ + 1) gap_locked(seq);  // Logon starts the sequence
    last_seq_ = seq;
  }
  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    int64_t now = now_ns();
    int seq = msg_seq_num(m);
    std::lock_guard<std::mutex> l(mu_);
    if (seq != last_seq_ + 1) gap_locked(seq);
    last_seq_ = seq;
    if (total_ == 0) {
      window_start_ = now + kSecond;
      window_end_ = window_start_ + window_ns_;
      cv_.notify_all();
    }
    ++total_;
    if (now >= window_start_ && now < window_end_) {
      ++in_window_;
      ++intervals_[(size_t)((now - window_start_) / kInterval)];
    }
  }

  // Waits for the window to close; returns false (reason on stderr) if it cannot be reported.
  bool wait_window() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return total_ > 0 || !error_.empty(); });
    while (error_.empty()) {
      int64_t left = window_end_ - now_ns();
      if (left <= 0) break;
      if (logged_out_) {
        if (left > kInterval) {
          error_ = "the stream ended " + std::to_string(left / 1000000) +
                   " ms before the window closed";
        }
        break;
      }
      cv_.wait_for(l, std::chrono::nanoseconds(std::min<int64_t>(left, 50000000)));
    }
    if (!error_.empty()) {
      std::fprintf(stderr, "FATAL: %s\n", error_.c_str());
      return false;
    }
    return true;
  }

  bool wait_logout(int seconds) {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, std::chrono::seconds(seconds), [&] { return logged_out_ || !error_.empty(); });
    if (!error_.empty()) {
      std::fprintf(stderr, "FATAL: %s\n", error_.c_str());
      return false;
    }
    std::fprintf(stderr, "receiver: %llu application messages in all, last MsgSeqNum %d\n",
                 (unsigned long long)total_, last_seq_);
    return true;
  }

  void report(const std::string& store, bool logs, int seconds, const std::string& settings) {
    std::vector<int64_t> rates;
    uint64_t in_window;
    {
      std::lock_guard<std::mutex> l(mu_);
      for (uint64_t c : intervals_) rates.push_back((int64_t)c * (kSecond / kInterval));
      in_window = in_window_;
    }
    std::sort(rates.begin(), rates.end());
    auto pct = [&](double q) {
      size_t idx = (size_t)std::ceil(q * (double)rates.size());
      if (idx < 1) idx = 1;
      if (idx > rates.size()) idx = rates.size();
      return (long long)rates[idx - 1];
    };
    double throughput = (double)in_window / (double)seconds;
    std::printf(
        "{\"engine\":\"quickfix-cpp\",\"case\":\"stream-%s%s\",\"unit\":\"msg/s\",\"min\":%lld,"
        "\"p50\":%lld,\"mean\":%.1f,\"p90\":%lld,\"p99\":%lld,\"p999\":%lld,\"max\":%lld,"
        "\"throughput_per_s\":%.0f,\"messages\":%llu,\"seq_errors\":0,\"seconds\":%d,"
        "\"settings\":\"%s\"}\n",
        store.c_str(), logs ? "-logs" : "", (long long)rates.front(), pct(0.5), throughput, pct(0.9), pct(0.99),
        pct(0.999), (long long)rates.back(), throughput, (unsigned long long)in_window, seconds,
        settings.c_str());
    std::fflush(stdout);
  }

 private:
  void gap_locked(int seq) {
    fail_locked("MsgSeqNum " + std::to_string(seq) + " after " + std::to_string(last_seq_) +
                " (expected " + std::to_string(last_seq_ + 1) + ")");
  }
  void fail_locked(const std::string& why) {
    if (error_.empty()) error_ = why;
    cv_.notify_all();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  int64_t window_ns_;
  int64_t window_start_ = 0, window_end_ = 0;
  std::vector<uint64_t> intervals_;
  uint64_t total_ = 0, in_window_ = 0;
  int last_seq_ = 0;
  bool logged_out_ = false;
  std::string error_;
};

// ---- sender --------------------------------------------------------------------------------

class Sender : public FIX::Application {
 public:
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override { logged_on_.set(); }
  void onLogout(const FIX::SessionID&) override { logged_out_.set(); }
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::RejectLogon) override {
    if (m.getHeader().getField(FIX::FIELD::MsgType) == "3")
      std::fprintf(stderr, "sender: the receiver rejected a message: %s\n",
                   bench::pipes(m.toString()).c_str());
  }
  void fromApp(const FIX::Message&, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {}

  bool wait_logon(int seconds) { return logged_on_.wait(seconds * 1000); }
  bool wait_logout(int seconds) { return logged_out_.wait(seconds * 1000); }

 private:
  bench::Event logged_on_, logged_out_;
};

const char* kCommon =
    "QuickFIX C++ 1.15.1 (Debian libquickfix-dev), SocketNodelay=Y, ResetOnLogon=Y, HeartBtInt=30";

// What the harness logs, for the settings lines.
std::string logging(const Args& a) {
  return a.logs ? "message and event logs on (FileLogFactory, FileLogPath=DIR/log, its defaults)"
                : "no log factory (no logging)";
}

// The --store choice (memory or file under --dir): both factories live here, so the one chosen
// outlives the acceptor or initiator that uses it.
struct Stores {
  Stores(const Args& a, const FIX::SessionSettings& s)
      : file(a.dir), use_file(a.store == "file"), log(a.logs ? new FIX::FileLogFactory(s) : nullptr) {}
  FIX::MessageStoreFactory& chosen() {
    return use_file ? static_cast<FIX::MessageStoreFactory&>(file) : memory;
  }
  FIX::MemoryStoreFactory memory;
  FIX::FileStoreFactory file;
  bool use_file;
  std::unique_ptr<FIX::FileLogFactory> log;  // --logs Y; else the connectors use NullLog
};

int run_receiver(const Args& a) {
  FIX::SessionID id("FIX.4.4", "VENUE", "CLIENT");
  FIX::SessionSettings settings = settings_for(a, id, true);
  Stores stores(a, settings);
  Receiver app(a.seconds);
  std::unique_ptr<FIX::SocketAcceptor> owned(
      stores.log ? new FIX::SocketAcceptor(app, stores.chosen(), settings, *stores.log)
                 : new FIX::SocketAcceptor(app, stores.chosen(), settings));
  FIX::SocketAcceptor& acceptor = *owned;
  acceptor.start();
  std::printf("ready\n");
  std::fflush(stdout);
  std::fprintf(stderr, "receiver: listening on %d, %s store, window %d s\n", a.port,
               a.store.c_str(), a.seconds);
  if (!app.wait_window()) std::_Exit(1);
  std::string settings_line =
      std::string("receiver: SocketAcceptor (one reactor thread: select(), parse, validation and"
                  " fromApp on it), ") +
      (a.store == "file"
           ? "FileStoreFactory (FileStorePath=--dir; each record written and fflush()ed, never"
             " fsynced)"
           : "MemoryStoreFactory") +
      ", validation UseDataDictionary=Y with --dict (FIX44.xml), QuickFIX C++'s default"
      " Validate* settings, MsgSeqNum"
      " continuity checked in fromApp/fromAdmin; sender (QuickFIX C++): ThreadedSocketInitiator,"
      " Session::send from one application thread, bounded by the blocking send(2) of its"
      " connection (TCP flow control; the default SocketInitiator queues without bound); " +
      std::string(kCommon) + ", " + logging(a) + "; g++ -O3 -march=native; rate over [1 s, 1 s + " +
      std::to_string(a.seconds) + " s) after the first application message, percentiles over"
      " 100 ms intervals";
  app.report(a.store, a.logs, a.seconds, settings_line);
  bool ok = app.wait_logout(10);
  acceptor.stop(true);
  return ok ? 0 : 1;
}

int run_sender(const Args& a) {
  FIX::SessionID id("FIX.4.4", "CLIENT", "VENUE");
  FIX::SessionSettings settings = settings_for(a, id, false);
  Stores stores(a, settings);
  Sender app;
  std::unique_ptr<FIX::ThreadedSocketInitiator> owned(
      stores.log ? new FIX::ThreadedSocketInitiator(app, stores.chosen(), settings, *stores.log)
                 : new FIX::ThreadedSocketInitiator(app, stores.chosen(), settings));
  FIX::ThreadedSocketInitiator& initiator = *owned;
  initiator.start();
  if (!app.wait_logon(60)) {
    std::fprintf(stderr, "FATAL: no logon within 60 s\n");
    std::_Exit(1);
  }
  FIX::Session* session = FIX::Session::lookupSession(id);
  if (!session) {
    std::fprintf(stderr, "FATAL: no session %s\n", id.toString().c_str());
    std::_Exit(1);
  }
  FIX44::NewOrderSingle nos;
  nos.set(FIX::Symbol("EUR/USD"));
  nos.set(FIX::Side(FIX::Side_BUY));
  nos.set(FIX::OrderQty(100));
  nos.set(FIX::OrdType(FIX::OrdType_LIMIT));
  nos.set(FIX::Price(1.2345));

  // Reused fields. FieldMap::setField of a tag the message already has copies the value into
  // the field it holds (std::string assignment: no allocation once its capacity suffices), and
  // Session::send serializes the message before it returns.
  FIX::ClOrdID clOrdId;
  std::string clOrd;
  clOrd.reserve(32);  // "C" + at most 20 digits: written in place, never reallocated
  FIX::TransactTime transactTime(3);
  int64_t lastMs = -1;

  int64_t start = now_ns();
  // S + 1 s, + 0.2 s so that the receiver's window (from its first message) is covered
  int64_t end = start + (int64_t)(a.seconds + 1) * kSecond + kInterval * 2;
  uint64_t sent = 0;
  // The loop allocates nothing per message: the ClOrdID (C1, C2, ...) is written into one
  // reserved std::string and set on one reused FIX::ClOrdID; TransactTime is formatted at most
  // once per millisecond (when the wall clock's millisecond moves) into one reused field; the
  // order is one reused FIX44::NewOrderSingle. What QuickFIX does inside Session::send is the
  // engine's own work.
  while (true) {
    if ((sent & 63) == 0 && now_ns() >= end) break;
    set_id(clOrd, 'C', sent + 1);
    clOrdId.setString(clOrd);
    nos.setField(clOrdId);
    int64_t ms = wall_ms();
    if (ms != lastMs) {
      lastMs = ms;
      transactTime = FIX::TransactTime(FIX::UtcTimeStamp(), 3);  // now, UTC, milliseconds
    }
    nos.setField(transactTime);
    if (!session->send(nos)) {
      std::fprintf(stderr, "FATAL: Session::send returned false after %llu messages\n",
                   (unsigned long long)sent);
      std::_Exit(1);
    }
    if (sent == 0) std::fprintf(stderr, "sender: first message %s\n", bench::pipes(nos.toString()).c_str());
    ++sent;
  }
  double elapsed = (double)(now_ns() - start) / 1e9;
  std::fprintf(stderr,
               "sender: %llu messages in %.3f s (%.0f msg/s); logging out\nsender settings:"
               " ThreadedSocketInitiator (blocking send(2) bounds the outbound data), %s store,"
               " %s, %s; harness loop: one reused NewOrderSingle, ClOrdID (C1, C2, ... written in"
               " place into a reserved std::string) and TransactTime (formatted at most once per"
               " ms)\n",
               (unsigned long long)sent, elapsed, (double)sent / elapsed, a.store.c_str(),
               kCommon, logging(a).c_str());
  session->logout("done");
  if (!app.wait_logout(30)) std::fprintf(stderr, "sender: no logout answer within 30 s\n");
  initiator.stop(true);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  try {
    return a.role == "receiver" ? run_receiver(a) : run_sender(a);
  } catch (std::exception& e) {
    std::fprintf(stderr, "FATAL: %s\n", e.what());
    return 1;
  }
}
