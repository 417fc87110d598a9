// BENCHMARKS.md §4 (the FIX Antenna experiment) with QuickFIX C++ 1.15.1: the round trip of a
// NewOrderSingle and its ExecutionReport between two processes over TCP on 127.0.0.1, one order
// in flight, through QuickFIX's session layer (sequence numbers, store, validation) on both sides.
// Contract with the Rust driver: peers/two-process-harnesses.md (§4).
//
//   roundtrip --role acceptor  --config balanced|optimized|fsync|production --port P --dir DIR
//             --dict D
//   roundtrip --role initiator --config balanced|optimized|fsync|production --port P --dir DIR
//             --dict D
//             [--iters N (100000)] [--warmup W (10000)] [--connector threaded|socket]
//
// The acceptor (VENUE) prints `ready` once it listens and answers each NewOrderSingle from
// fromApp with an ExecutionReport; it exits by itself once its session has logged on and off
// again, or on SIGTERM/SIGINT. The initiator (CLIENT) sends the first order from onLogon and each
// next one from the fromApp that receives the previous report, on QuickFIX's own thread; t1 is
// taken right before Session::send, t2 right after the report's ClOrdID is checked in fromApp
// (QuickFIX has parsed and validated it by then). W warm-up round trips are discarded, N are kept
// in an exact array; then it logs out, prints one JSON line on stdout and exits 0: exact
// nearest-rank percentiles and the whole distribution, `hdr`, bucketed as a 3-significant-digit
// HdrHistogram would (see hdrPairs), both computed after the measured loop.
//
// Settings (all repeated in the JSON `settings` string):
// * ThreadedSocketAcceptor / ThreadedSocketInitiator (default; `--connector socket` selects the
//   single-threaded SocketAcceptor/SocketInitiator for comparison). QuickFIX publishes no latency
//   guide, so the choice comes from its 1.15.1 sources: ThreadedSocketConnection::send() writes
//   the message straight to the socket from the calling thread, and each connection's thread
//   blocks in select()+recv() and runs the session and the callbacks itself; the single-threaded
//   SocketConnection::send() queues the string, polls the socket with select() and then wakes its
//   SocketMonitor (an extra pipe write and select round per message). Measured here, see
//   peers/README.md.
// * SocketNodelay=Y (QuickFIX C++ defaults to N). The 1.15.1 acceptors have no accept-address
//   setting and listen on 0.0.0.0:P; the initiator connects to 127.0.0.1:P.
// * balanced: FileStoreFactory (FileStorePath=DIR/store); 1.15.1's FileStore fflush()es each
//   record to the OS before the message is sent and never fsyncs (there is no FileStoreSync key).
//   Validation: UseDataDictionary=Y with the FIX44 dictionary, AllowUnknownMsgFields=Y (see
//   kAllowUnknown), every other validation setting at its default.
// * fsync: not supported by QuickFIX C++ 1.15.1 (see above): the initiator prints no JSON line,
//   says so on stderr and exits 0 without connecting; the acceptor says so too and then serves
//   like balanced, so that the driver's start-up sequence stays the same for every engine.
// * optimized: MemoryStoreFactory, UseDataDictionary=N (BodyLength and CheckSum still checked).
// * production: balanced with the message and event logs on: a FIX::FileLogFactory with
//   FileLogPath=DIR/log and its defaults otherwise (every message, heartbeats too, a line each
//   with its time, and the events; each line flushed to the OS by std::endl as it is written).
// * The other configs log nothing: no LogFactory is given, so every session logs to QuickFIX's
//   NullLog.
//
// The harness allocates nothing per round trip beyond what QuickFIX's API does inside its own
// calls: ClOrdID fields are pre-built, the order and the report are reused messages,
// OrderID/ExecID strings come from a table built at start-up (built on the fly past 262,144
// orders), TransactTime is formatted once per millisecond.

#include <quickfix/Application.h>
#include <quickfix/FileLog.h>
#include <quickfix/FileStore.h>
#include <quickfix/Message.h>
#include <quickfix/Session.h>
#include <quickfix/SessionSettings.h>
#include <quickfix/SocketAcceptor.h>
#include <quickfix/SocketInitiator.h>
#include <quickfix/ThreadedSocketAcceptor.h>
#include <quickfix/ThreadedSocketInitiator.h>
#include <quickfix/fix44/ExecutionReport.h>
#include <quickfix/fix44/NewOrderSingle.h>

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "bench_common.h"

namespace {

const char* const kEngine = "quickfix-cpp";
const int kPrebuiltIds = 1 << 18;
const int64_t kTimeoutNs = 60LL * 1000 * 1000 * 1000;

const char* const kAllowUnknown =
    "AllowUnknownMsgFields=Y (not the default: the contract's ClientID(109) is not defined for "
    "NewOrderSingle/ExecutionReport in FIX44.xml and every order is rejected without it; "
    "QuickFIX C++ then skips the tag-number, tag-in-message and group-count checks for tags "
    "< 5000; formats, enum values, required fields, field order, empty values still checked)";

struct Args {
  std::string role, config, dir, dict, connector = "threaded";
  int port = -1;
  long iters = 100000, warmup = 10000;
};

void usage() {
  std::fprintf(stderr,
               "usage: roundtrip --role acceptor|initiator "
               "--config balanced|optimized|fsync|production "
               "--port P --dir DIR --dict FIX44.xml [--iters N (100000)] [--warmup W (10000)] "
               "[--connector threaded|socket]\n");
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--help" || k == "-h") {
      usage();
      std::exit(0);
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "missing value for %s\n", k.c_str());
      usage();
      std::exit(2);
    }
    std::string v = argv[++i];
    if (k == "--role") a.role = v;
    else if (k == "--config") a.config = v;
    else if (k == "--port") a.port = std::atoi(v.c_str());
    else if (k == "--dir") a.dir = v;
    else if (k == "--dict") a.dict = v;
    else if (k == "--iters") a.iters = std::atol(v.c_str());
    else if (k == "--warmup") a.warmup = std::atol(v.c_str());
    else if (k == "--connector") a.connector = v;
    else {
      std::fprintf(stderr, "unknown argument %s\n", k.c_str());
      usage();
      std::exit(2);
    }
  }
  bool ok = (a.role == "acceptor" || a.role == "initiator") &&
            (a.config == "balanced" || a.config == "optimized" || a.config == "fsync" ||
             a.config == "production") &&
            (a.connector == "threaded" || a.connector == "socket") && a.port > 0 &&
            a.port < 65536 && !a.dir.empty() && !a.dict.empty() && a.iters > 0 &&
            a.warmup >= 0 && a.iters + a.warmup < (1L << 31);
  if (!ok) {
    usage();
    std::exit(2);
  }
  return a;
}

bool fileStore(const Args& a) { return a.config != "optimized"; }

// production: the message and event logs on; the other configs log nothing.
bool logs(const Args& a) { return a.config == "production"; }

// The one session of this process, configured in code (no .cfg file).
FIX::SessionSettings settingsFor(const Args& a, const FIX::SessionID& id) {
  FIX::SessionSettings s;
  FIX::Dictionary defaults;
  // The initiator reads these two from [DEFAULT] only; the acceptor from the session.
  defaults.setString("SocketNodelay", "Y");
  defaults.setString("ReconnectInterval", "1");
  // The connector's own log (FileLogFactory::create()) reads FileLogPath from [DEFAULT].
  if (logs(a)) defaults.setString("FileLogPath", a.dir + "/log");
  s.set(defaults);

  FIX::Dictionary d;
  bool acceptor = a.role == "acceptor";
  d.setString("ConnectionType", acceptor ? "acceptor" : "initiator");
  d.setString("StartTime", "00:00:00");
  d.setString("EndTime", "00:00:00");
  d.setString("HeartBtInt", "30");
  d.setString("ResetOnLogon", "Y");
  d.setString("SocketNodelay", "Y");
  if (fileStore(a)) {
    d.setString("FileStorePath", a.dir + "/store");
    d.setString("UseDataDictionary", "Y");
    d.setString("DataDictionary", a.dict);
    d.setString("AllowUnknownMsgFields", "Y");  // see kAllowUnknown
  } else {
    d.setString("UseDataDictionary", "N");
  }
  if (logs(a)) d.setString("FileLogPath", a.dir + "/log");
  if (acceptor) {
    d.setString("SocketAcceptPort", std::to_string(a.port));
  } else {
    d.setString("SocketConnectHost", "127.0.0.1");
    d.setString("SocketConnectPort", std::to_string(a.port));
  }
  s.set(id, d);
  return s;
}

std::unique_ptr<FIX::MessageStoreFactory> storeFactory(const Args& a,
                                                       const FIX::SessionSettings& s) {
  if (fileStore(a)) return std::unique_ptr<FIX::MessageStoreFactory>(new FIX::FileStoreFactory(s));
  return std::unique_ptr<FIX::MessageStoreFactory>(new FIX::MemoryStoreFactory());
}

// production: QuickFIX's FileLogFactory in DIR/log (the driver checks afterwards that it holds
// every order and report); the other configs: none (the connectors then use NullLog).
std::unique_ptr<FIX::LogFactory> logFactory(const Args& a, const FIX::SessionSettings& s) {
  if (!logs(a)) return nullptr;
  return std::unique_ptr<FIX::LogFactory>(new FIX::FileLogFactory(s));
}

std::string describe(const Args& a) {
  std::string connector =
      a.connector == "threaded"
          ? "ThreadedSocketAcceptor/ThreadedSocketInitiator (a thread per connection blocks in "
            "select+recv and runs session, store and callbacks; send() writes to the socket "
            "directly from the calling thread; no spinning)"
          : "SocketAcceptor/SocketInitiator (one SocketMonitor thread: select over the sockets "
            "and a wake-up pipe; send() queues, polls with select, writes, signals the monitor)";
  std::string store =
      a.config == "optimized"
          ? "MemoryStoreFactory"
          : "FileStoreFactory (FileStorePath=DIR/store; each record fflush()ed to the OS before "
            "the message is sent, never fsynced: 1.15.1 has no FileStoreSync)";
  std::string validation =
      fileStore(a) ? "UseDataDictionary=Y DataDictionary=" + a.dict + ", " + kAllowUnknown +
                         " (every other validation setting at its default: "
                         "ValidateFieldsOutOfOrder=Y, ValidateFieldsHaveValues=Y, "
                         "ValidateUserDefinedFields=Y, ValidateLengthAndChecksum=Y, "
                         "CheckLatency=Y)"
                   : "UseDataDictionary=N (BodyLength and CheckSum still checked)";
  return "QuickFIX C++ 1.15.1 (Debian libquickfix-dev) " + connector + ", " + store +
         ", validation " + validation +
         ", SocketNodelay=Y (QuickFIX C++ defaults to N), ResetOnLogon=Y, HeartBtInt=30, " +
         (logs(a) ? "message and event logs on (FileLogFactory, FileLogPath=DIR/log, its "
                    "defaults otherwise: heartbeats logged, a timestamp per line, each line "
                    "flushed to the OS as written)"
                  : "no logging (no LogFactory: NullLog)") +
         "; initiator sends each next order from fromApp on "
         "QuickFIX's thread, t1 before Session::send, t2 after the ER's ClOrdID check; reused "
         "FIX44::NewOrderSingle/ExecutionReport, pre-built ClOrdID fields and OrderID/ExecID "
         "strings, TransactTime formatted once per ms; std::chrono::steady_clock, exact sorted "
         "array of samples, nearest-rank percentiles; g++ -O3 -march=native";
}

// Callbacks neither side uses.
class Base : public FIX::Application {
 public:
  void onCreate(const FIX::SessionID&) override {}
  void onLogon(const FIX::SessionID&) override {}
  void onLogout(const FIX::SessionID&) override {}
  void toAdmin(FIX::Message&, const FIX::SessionID&) override {}
  void toApp(FIX::Message&, const FIX::SessionID&) throw(FIX::DoNotSend) override {}
  void fromAdmin(const FIX::Message&, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::RejectLogon) override {}
};

// ---- acceptor --------------------------------------------------------------------------------

// VENUE: answers each NewOrderSingle with an ExecutionReport built on one reused message.
class Venue : public Base {
 public:
  Venue() : orderIds_(kPrebuiltIds), execIds_(kPrebuiltIds) {
    for (int i = 0; i < kPrebuiltIds; ++i) {
      orderIds_[i] = "O" + std::to_string(i + 1);
      execIds_[i] = "E" + std::to_string(i + 1);
    }
    er_.setField(150, "0");  // ExecType New
    er_.setField(39, "0");   // OrdStatus New
    er_.setField(14, "0");   // CumQty
    er_.setField(6, "0");    // AvgPx
  }

  void onLogon(const FIX::SessionID& id) override {
    session_ = FIX::Session::lookupSession(id);
    loggedOn_ = true;
  }
  void onLogout(const FIX::SessionID&) override {
    if (loggedOn_) loggedOut.set();
  }

  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    if (m.getHeader().getField(35) != "D") {
      std::fprintf(stderr, "[roundtrip] acceptor: ignoring MsgType %s\n",
                   m.getHeader().getField(35).c_str());
      return;
    }
    long n = orders++;
    if (n < kPrebuiltIds) {
      er_.setField(37, orderIds_[n]);
      er_.setField(17, execIds_[n]);
    } else {
      er_.setField(37, "O" + std::to_string(n + 1));
      er_.setField(17, "E" + std::to_string(n + 1));
    }
    const std::string& qty = m.getField(38);
    er_.setField(11, m.getField(11));
    er_.setField(55, m.getField(55));
    er_.setField(54, m.getField(54));
    er_.setField(38, qty);
    er_.setField(151, qty);  // LeavesQty = OrderQty
    er_.setField(109, m.getField(109));
    er_.setField(44, m.getField(44));
    er_.setField(60, m.getField(60));
    if (!session_->send(er_)) std::fprintf(stderr, "[roundtrip] acceptor: send failed\n");
  }

  bench::Event loggedOut;
  std::atomic<long> orders{0};

 private:
  FIX::Session* session_ = nullptr;
  bool loggedOn_ = false;
  FIX44::ExecutionReport er_;
  std::vector<std::string> orderIds_, execIds_;
};

// SIGTERM/SIGINT are blocked in every thread and taken here by the main thread.
sigset_t stopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

int runAcceptor(const Args& a) {
  if (a.config == "fsync")
    std::fprintf(stderr,
                 "[roundtrip] quickfix-cpp: --config fsync is not supported: QuickFIX C++ "
                 "1.15.1's FileStore only fflush()es (no fsync, no FileStoreSync); serving as "
                 "balanced so the initiator's run can report that\n");
  FIX::SessionID id("FIX.4.4", "VENUE", "CLIENT");
  FIX::SessionSettings s = settingsFor(a, id);
  auto store = storeFactory(a, s);
  auto log = logFactory(a, s);
  Venue venue;
  std::unique_ptr<FIX::Acceptor> acceptor;
  if (a.connector == "threaded")
    acceptor.reset(log ? new FIX::ThreadedSocketAcceptor(venue, *store, s, *log)
                       : new FIX::ThreadedSocketAcceptor(venue, *store, s));
  else
    acceptor.reset(log ? new FIX::SocketAcceptor(venue, *store, s, *log)
                       : new FIX::SocketAcceptor(venue, *store, s));
  acceptor->start();  // binds and listens before returning (onInitialize)
  std::fprintf(stderr, "[roundtrip] quickfix-cpp acceptor %s listening on port %d; settings: %s\n",
               a.config.c_str(), a.port, describe(a).c_str());
  std::printf("ready\n");
  std::fflush(stdout);

  sigset_t set = stopSignals();
  struct timespec tick = {0, 100 * 1000 * 1000};
  for (;;) {
    int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      std::fprintf(stderr, "[roundtrip] acceptor: signal %d after %ld orders; exiting\n", sig,
                   venue.orders.load());
      break;
    }
    if (venue.loggedOut.wait(0)) {
      std::fprintf(stderr, "[roundtrip] acceptor: session logged out after %ld orders; exiting\n",
                   venue.orders.load());
      break;
    }
  }
  // Every store record is already fflush()ed; skip the engine's teardown (its threads may sit
  // in accept()).
  std::fflush(stderr);
  _exit(0);
}

// ---- initiator -------------------------------------------------------------------------------

// CLIENT: keeps one order in flight; the next order goes out from the callback that received
// the previous ExecutionReport. All of its state stays on QuickFIX's connection thread.
class Client : public Base {
 public:
  Client(long warmup, long iters) : samples(iters), warmup_(warmup), total_(warmup + iters) {
    clOrdIds_.reserve(total_);
    clOrdIdFields_.reserve(total_);
    char buf[32];
    for (long i = 0; i < total_; ++i) {
      std::snprintf(buf, sizeof buf, "C%09ld", i + 1);
      clOrdIds_.push_back(buf);
      clOrdIdFields_.push_back(FIX::ClOrdID(buf));
    }
    nos_.setField(109, "CLIENT1");  // ClientID
    nos_.setField(55, "EUR/USD");   // Symbol
    nos_.setField(54, "1");         // Side Buy
    nos_.setField(38, "100");       // OrderQty
    nos_.setField(40, "2");         // OrdType Limit
    nos_.setField(44, "1.2345");    // Price
  }

  // The first order goes out from here, on QuickFIX's thread like every later one.
  void onLogon(const FIX::SessionID& id) override {
    session_ = FIX::Session::lookupSession(id);
    loggedOn.set();
    sendNext();
  }
  // A disconnect before the last report fails the run at once (not after the timeout).
  void onLogout(const FIX::SessionID&) override {
    long c = completed.load();
    if (c < total_) fail("session logged out or disconnected after " + std::to_string(c) +
                         " round trips");
    loggedOut.set();
  }

  void fromApp(const FIX::Message& m, const FIX::SessionID&) throw(
      FIX::FieldNotFound, FIX::IncorrectDataFormat, FIX::IncorrectTagValue,
      FIX::UnsupportedMessageType) override {
    const std::string& type = m.getHeader().getField(35);
    const std::string& clOrd = m.getField(11);
    if (type != "8" || clOrd != clOrdIds_[next_]) {
      fail("expected ExecutionReport for " + clOrdIds_[next_] + ", got 35=" + type + " 11=" +
           clOrd);
      return;
    }
    int64_t t2 = bench::now_ns();
    long i = next_;
    if (i >= warmup_) samples[i - warmup_] = t2 - t1_;
    completed.store(i + 1, std::memory_order_relaxed);
    if (i + 1 == total_) {
      measureEndNs = t2;
      done.set();
      return;
    }
    next_ = i + 1;
    sendNext();
  }

  FIX::Session* session() { return session_; }

  bench::Event loggedOn, loggedOut, done;
  std::atomic<long> completed{0};
  std::string failure;
  std::vector<int64_t> samples;
  int64_t measureStartNs = 0, measureEndNs = 0;

 private:
  // Fills in order `next_` and sends it; t1 is taken right before Session::send.
  void sendNext() {
    long i = next_;
    if (i == warmup_) measureStartNs = bench::now_ns();
    nos_.setField(clOrdIdFields_[i]);
    FIX::UtcTimeStamp now;
    int64_t ms = (int64_t)now.getTimeT() * 1000 + now.getMillisecond();
    if (ms != lastMs_) {
      lastMs_ = ms;
      transactTime_ = FIX::TransactTime(now, 3);
    }
    nos_.setField(transactTime_);
    t1_ = bench::now_ns();
    if (!session_->send(nos_))
      fail("Session::send returned false at order " + std::to_string(i + 1));
  }

  // The first failure wins; the main thread reads `failure` once `done` is set.
  void fail(const std::string& why) {
    if (failed_.exchange(true)) return;
    failure = why;
    done.set();
  }

  const long warmup_, total_;
  std::vector<std::string> clOrdIds_;
  std::vector<FIX::ClOrdID> clOrdIdFields_;
  FIX44::NewOrderSingle nos_;
  FIX::TransactTime transactTime_;
  int64_t lastMs_ = -1;
  FIX::Session* session_ = nullptr;
  long next_ = 0;
  int64_t t1_ = 0;
  std::atomic<bool> failed_{false};
};

// The lowest value of v's bucket in an HdrHistogram with 3 significant digits and a lowest
// discernible value of 1 ns (the driver's): 2048 sub-buckets, so values below 2048 ns are kept
// exactly and above that only their 11 most significant bits (a value is lowered by less than
// 1/1024 of itself).
int64_t hdrLowest(int64_t v) {
  if (v <= 0) return 0;
  int shift = 64 - __builtin_clzll((unsigned long long)v) - 11;
  return shift > 0 ? (v >> shift) << shift : v;
}

// The whole distribution for the JSON field `hdr`, in the form of Peregrine's result line:
// [[value_ns,count],...], one pair per occupied bucket, values ascending, each sample rounded
// down to its bucket's lowest value (hdrLowest). The driver records the pairs into such a
// histogram, so every value lands in the bucket the exact sample would have. Called on the
// sorted samples after the measured loop; the line's percentiles stay exact.
std::string hdrPairs(const std::vector<int64_t>& sorted) {
  std::string out = "[";
  out.reserve(64 + std::min<size_t>(sorted.size(), 8192) * 16);
  char buf[48];
  int64_t bucket = -1;
  long long count = 0;
  auto flush = [&]() {
    if (count == 0) return;
    std::snprintf(buf, sizeof buf, "%s[%lld,%lld]", out.size() > 1 ? "," : "",
                  (long long)bucket, count);
    out += buf;
  };
  for (int64_t x : sorted) {
    int64_t lo = hdrLowest(x);
    if (lo != bucket) {
      flush();
      bucket = lo;
      count = 0;
    }
    count++;
  }
  flush();
  out += ']';
  return out;
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "[roundtrip] FATAL: %s\n", why.c_str());
  std::fflush(stderr);
  _exit(1);
}

int runInitiator(const Args& a) {
  if (a.config == "fsync") {
    std::fprintf(stderr,
                 "[roundtrip] quickfix-cpp: --config fsync is not supported: QuickFIX C++ "
                 "1.15.1's FileStore (FileStore.cpp) only fflush()es each record, it never "
                 "fsyncs and has no FileStoreSync setting; no result line for this row\n");
    return 0;
  }
  FIX::SessionID id("FIX.4.4", "CLIENT", "VENUE");
  FIX::SessionSettings s = settingsFor(a, id);
  auto store = storeFactory(a, s);
  auto log = logFactory(a, s);
  Client client(a.warmup, a.iters);
  std::unique_ptr<FIX::Initiator> initiator;
  if (a.connector == "threaded")
    initiator.reset(log ? new FIX::ThreadedSocketInitiator(client, *store, s, *log)
                        : new FIX::ThreadedSocketInitiator(client, *store, s));
  else
    initiator.reset(log ? new FIX::SocketInitiator(client, *store, s, *log)
                        : new FIX::SocketInitiator(client, *store, s));
  std::fprintf(stderr, "[roundtrip] quickfix-cpp initiator %s: warmup %ld, iters %ld against "
               "127.0.0.1:%d\n", a.config.c_str(), a.warmup, a.iters, a.port);
  initiator->start();
  if (!client.loggedOn.wait(60 * 1000)) die("no logon within 60 s");

  // Watchdog: fail if one round trip takes longer than the timeout.
  long seen = -1;
  int64_t lastProgress = bench::now_ns();
  while (!client.done.wait(1000)) {
    long c = client.completed.load(std::memory_order_relaxed);
    if (c != seen) {
      seen = c;
      lastProgress = bench::now_ns();
    } else if (bench::now_ns() - lastProgress > kTimeoutNs) {
      die("no ExecutionReport for order " + std::to_string(c + 1) + " within 60 s");
    }
  }
  if (!client.failure.empty()) die(client.failure);

  std::vector<int64_t>& v = client.samples;
  const size_t n = v.size();
  double wallNs = (double)(client.measureEndNs - client.measureStartNs);
  double sum = 0;
  for (int64_t x : v) sum += (double)x;
  std::sort(v.begin(), v.end());

  // Log out (the Logout goes out on the session's next timer tick, within a second) and wait
  // for the acceptor's Logout.
  client.session()->logout();
  if (!client.loggedOut.wait(15 * 1000)) std::fprintf(stderr, "[roundtrip] no Logout reply\n");

  std::printf(
      "{\"engine\":\"%s\",\"case\":\"%s\",\"unit\":\"ns\",\"iters\":%zu,\"warmup\":%ld,"
      "\"min\":%lld,\"p50\":%lld,\"mean\":%.1f,\"p90\":%lld,\"p99\":%lld,\"p999\":%lld,"
      "\"max\":%lld,\"throughput_per_s\":%.0f,\"settings\":\"%s\",\"hdr\":%s}\n",
      kEngine, a.config.c_str(), n, a.warmup, (long long)v.front(),
      (long long)bench::pct(v, 0.50), sum / (double)n, (long long)bench::pct(v, 0.90),
      (long long)bench::pct(v, 0.99), (long long)bench::pct(v, 0.999), (long long)v.back(),
      wallNs > 0 ? (double)n * 1e9 / wallNs : 0.0, bench::json_escape(describe(a)).c_str(),
      hdrPairs(v).c_str());
  std::fflush(stdout);
  std::fprintf(stderr, "[roundtrip] initiator done: p50 %lld ns, p99 %lld ns\n",
               (long long)bench::pct(v, 0.50), (long long)bench::pct(v, 0.99));
  std::fflush(stderr);
  _exit(0);  // the engine's teardown is not part of the run
}

}  // namespace

int main(int argc, char** argv) {
  Args a = parse(argc, argv);
  // The acceptor blocks the stop signals before QuickFIX starts its threads (which inherit the
  // mask) and takes them with sigtimedwait; the initiator keeps the default (terminate).
  sigset_t set = stopSignals();
  if (a.role == "acceptor") pthread_sigmask(SIG_BLOCK, &set, nullptr);
  if (mkdir(a.dir.c_str(), 0755) != 0 && errno != EEXIST) bench::fail("cannot create " + a.dir);
  try {
    return a.role == "acceptor" ? runAcceptor(a) : runInitiator(a);
  } catch (std::exception& e) {
    die(std::string("QuickFIX: ") + e.what());
  }
}
