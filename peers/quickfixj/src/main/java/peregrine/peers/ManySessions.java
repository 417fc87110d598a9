package peregrine.peers;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import quickfix.Application;
import quickfix.FieldNotFound;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.StringField;
import quickfix.field.MsgType;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.NewOrderSingle;
import quickfix.mina.acceptor.DynamicAcceptorSessionProvider;

/**
 * BENCHMARKS.md section 5, part 2 (many sessions on one acceptor), QuickFIX/J 2.3.1 side.
 *
 * <p>{@code --role acceptor}: the acceptor under test. One {@code SocketAcceptor} with the default
 * single-threaded event handling (one "QFJ Message Processor" thread runs every session's
 * callbacks; MINA's NioSocketAcceptor has its default pool of availableProcessors()+1 I/O
 * threads), one port, N sessions VENUE->CLIENT0..CLIENT{N-1}, MemoryStoreFactory,
 * UseDataDictionary=N, no logs. Each NewOrderSingle is answered from fromApp with the
 * ExecutionReport of the contract (fresh O<n>/E<n>, ClOrdID, Symbol, Side, ClientID, Price,
 * OrderQty, TransactTime copied, LeavesQty=OrderQty). Sessions are either N session sections
 * built in code ({@code --mode static}, the default: every Session and its store exist before
 * {@code ready}) or QuickFIX/J's dynamic sessions ({@code --mode dynamic}: one
 * AcceptorTemplate=Y section with TargetCompID=* and a {@code DynamicAcceptorSessionProvider},
 * the way QuickFIX/J users accept many counterparties: each Session is created at its Logon).
 *
 * <p>{@code --role load}: a QuickFIX/J load generator, the alternative to Peregrine's: one
 * {@code SocketInitiator} with N sessions CLIENTk->VENUE; reports the time from start() to all N
 * logged on, then every session keeps one order in flight for 1 s of warm-up + S seconds (the next
 * order is sent from fromApp on the ExecutionReport whose ClOrdID matches); aggregate round trips/s and the
 * round-trip distribution (1 us buckets), one JSON line {@code "case": "sessions-N"}.
 */
public final class ManySessions {
  private ManySessions() {}

  static final String USAGE = "usage: run.sh ManySessions --role acceptor --sessions N --port P"
      + " --dir DIR --dict FIX44.xml [--mode static|dynamic]\n"
      + "       run.sh ManySessions --role load --sessions N --port P --seconds S"
      + " [--dir DIR] [--dict FIX44.xml]";

  public static void main(String[] argv) {
    ScaleSupport.runOrHalt(argv, ManySessions::run);
  }

  static void run(String[] argv) throws Exception {
    Map<String, String> a = ScaleSupport.args(argv, USAGE,
        "--role", "--sessions", "--port", "--dir", "--dict", "--seconds", "--mode");
    String role = ScaleSupport.need(a, "--role", USAGE);
    int n = Integer.parseInt(ScaleSupport.need(a, "--sessions", USAGE));
    int port = Integer.parseInt(ScaleSupport.need(a, "--port", USAGE));
    if (role.equals("acceptor")) {
      ScaleSupport.need(a, "--dir", USAGE); // MemoryStore and no logs: nothing is written there
      ScaleSupport.need(a, "--dict", USAGE); // UseDataDictionary=N: not loaded
      String mode = a.getOrDefault("--mode", "static");
      if (!mode.equals("static") && !mode.equals("dynamic")) {
        System.err.println("--mode must be static or dynamic");
        System.exit(2);
      }
      acceptor(n, port, mode.equals("dynamic"));
    } else if (role.equals("load")) {
      load(n, port, Integer.parseInt(ScaleSupport.need(a, "--seconds", USAGE)));
    } else {
      System.err.println("--role must be acceptor or load");
      System.exit(2);
    }
  }

  static String client(int k) {
    return "CLIENT" + k;
  }

  /**
   * The [default] section, common to every session: this side's connection type and socket on
   * 127.0.0.1 (an initiator reconnects after 1 s); the caller adds its CompID.
   */
  static SessionSettings commonSettings(boolean acceptor, int port) {
    SessionSettings s = new SessionSettings();
    s.setString("BeginString", ScaleSupport.BEGIN_STRING);
    s.setString("NonStopSession", "Y");
    s.setString("HeartBtInt", "30");
    s.setString("ResetOnLogon", "Y");
    s.setString("SocketTcpNoDelay", "Y");
    s.setString("UseDataDictionary", "N");
    s.setString("ConnectionType", acceptor ? "acceptor" : "initiator");
    if (acceptor) {
      s.setString("SocketAcceptAddress", "127.0.0.1");
      s.setLong("SocketAcceptPort", port);
    } else {
      s.setString("SocketConnectHost", "127.0.0.1");
      s.setLong("SocketConnectPort", port);
      s.setLong("ReconnectInterval", 1);
    }
    return s;
  }

  static long rssKb() {
    try {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    } catch (Exception e) {
      // not Linux: report 0
    }
    return 0;
  }

  static String heapMb() {
    Runtime r = Runtime.getRuntime();
    return (r.totalMemory() - r.freeMemory()) / (1 << 20) + " MiB used of " + r.totalMemory() / (1 << 20)
        + " MiB committed";
  }

  // ---- acceptor ---------------------------------------------------------------------------

  /**
   * Orders whose OrderID/ExecID Strings the acceptor builds before {@code ready} (~13 MB; past
   * them each is built on the fly and counted); also the per-session ClOrdIDs the load generator
   * builds. QuickFIX/J's acceptor answers ~10,000-13,000 orders/s here, so a 1 s warm-up + 5 s
   * run stays well inside.
   */
  static final int PREBUILT_IDS = 1 << 17;

  /** Both sides' callbacks but fromApp: a count of the sessions logged on, nothing else. */
  abstract static class LoggedOnCount implements Application {
    final AtomicInteger loggedOn = new AtomicInteger();

    @Override public void onCreate(SessionID s) {}
    @Override public void onLogon(SessionID s) {
      loggedOn.incrementAndGet();
    }
    @Override public void onLogout(SessionID s) {
      loggedOn.decrementAndGet();
    }
    @Override public void toAdmin(Message m, SessionID s) {}
    @Override public void fromAdmin(Message m, SessionID s) {}
    @Override public void toApp(Message m, SessionID s) {}
  }

  /**
   * Answers NewOrderSingles; runs on QuickFIX/J's one message-processor thread (static and
   * dynamic sessions alike), so one reused ExecutionReport and one set of reused fields serve
   * every session.
   */
  static final class Venue extends LoggedOnCount {
    private final OrderAck ack = new OrderAck(PREBUILT_IDS);
    volatile long orders; // written by the QFJ thread only; read by main's progress lines


    /**
     * Allocates nothing per order (as RoundTrip's Venue): {@link OrderAck} fills its one reused
     * report, OrderID/ExecID from the tables built before {@code ready} (on the fly past
     * {@link #PREBUILT_IDS} orders).
     */
    @Override public void fromApp(Message m, SessionID s) throws FieldNotFound {
      if (!m.getHeader().getString(MsgType.FIELD).equals(MsgType.ORDER_SINGLE)) return;
      long n = orders;
      orders = n + 1;
      ExecutionReport er = ack.answer(m, n);
      Session session = Session.lookupSession(s);
      if (session == null || !session.send(er)) {
        System.err.println("acceptor: could not send the ExecutionReport on " + s);
      }
    }
  }

  static void acceptor(int n, int port, boolean dynamic) throws Exception {
    long rss0 = rssKb();
    long t0 = System.nanoTime();
    Venue venue = new Venue();
    SessionSettings settings = commonSettings(true, port);
    settings.setString("SenderCompID", "VENUE");
    SocketAcceptor acceptor;
    if (dynamic) {
      SessionID template = new SessionID(ScaleSupport.BEGIN_STRING, "VENUE",
          DynamicAcceptorSessionProvider.WILDCARD);
      settings.setString(template, "AcceptorTemplate", "Y");
      acceptor = new SocketAcceptor(venue, new MemoryStoreFactory(), settings, ScaleSupport.NO_LOG,
          new quickfix.fix44.MessageFactory());
      acceptor.setSessionProvider(new InetSocketAddress("127.0.0.1", port),
          new DynamicAcceptorSessionProvider(settings, template, venue, new MemoryStoreFactory(),
              ScaleSupport.NO_LOG, new quickfix.fix44.MessageFactory()));
    } else {
      for (int k = 0; k < n; k++) {
        // one section per session; everything else comes from the default section
        settings.setString(new SessionID(ScaleSupport.BEGIN_STRING, "VENUE", client(k)),
            "ConnectionType", "acceptor");
      }
      acceptor = new SocketAcceptor(venue, new MemoryStoreFactory(), settings, ScaleSupport.NO_LOG,
          new quickfix.fix44.MessageFactory());
    }
    long t1 = System.nanoTime();
    acceptor.start();
    long t2 = System.nanoTime();
    ScaleSupport.ready();
    System.err.printf(java.util.Locale.ROOT,
        "acceptor: %s sessions, %d %s; settings + SocketAcceptor built in %.1f ms, start() %.1f ms;"
            + " RSS %d -> %d KiB, heap %s%n",
        dynamic ? "dynamic (AcceptorTemplate=Y, TargetCompID=*)" : "static", n,
        dynamic ? "expected" : "session sections", (t1 - t0) / 1e6, (t2 - t1) / 1e6, rss0, rssKb(),
        heapMb());
    System.err.println("acceptor settings: QuickFIX/J 2.3.1 SocketAcceptor, default single-threaded"
        + " event handling (one QFJ Message Processor thread for all sessions, MINA I/O threads:"
        + " availableProcessors()+1), " + (dynamic ? "dynamic sessions" : "static sessions")
        + ", MemoryStoreFactory, UseDataDictionary=N, no logs, SocketTcpNoDelay=Y, ResetOnLogon=Y;"
        + " one reused ExecutionReport and reused StringFields (copied values are the Strings"
        + " QuickFIX/J parsed), OrderID/ExecID from tables of " + PREBUILT_IDS + " built before"
        + " ready; "
        + Harness.jvmSettings().replace(", System.nanoTime per-op timing", ""));
    // Progress on stderr until SIGTERM (the JVM exits on it).
    int last = -1;
    long lastRss = -1;
    while (true) {
      Thread.sleep(1000);
      int now = venue.loggedOn.get();
      long rss = rssKb();
      if (now != last || Math.abs(rss - lastRss) > 10240) {
        long orders = venue.orders;
        System.err.println("acceptor: " + now + " logged on, " + orders + " orders answered"
            + (orders > PREBUILT_IDS ? " (" + (orders - PREBUILT_IDS) + " OrderID/ExecID pairs"
                + " built on the fly past the table)" : "")
            + ", RSS " + rss + " KiB, heap " + heapMb());
        last = now;
        lastRss = rss;
      }
    }
  }

  // ---- load generator ---------------------------------------------------------------------

  /** One order in flight per session; callbacks on QuickFIX/J's one message-processor thread. */
  static final class Load extends LoggedOnCount {
    final int n;
    final Map<SessionID, Integer> index = new HashMap<>();
    final Session[] sessions;
    final NewOrderSingle[] orders;
    final quickfix.field.ClOrdID[] clOrdIdFields;
    final StringField[] transactTimes;
    /** ClOrdIDs C1, C2, ... shared by every session (unique per session, as FIX asks). */
    final String[] clOrdIds = ScaleSupport.idTable("C", PREBUILT_IDS);
    final ScaleSupport.MillisTimestamp clock = new ScaleSupport.MillisTimestamp();
    final String[] inFlight;
    final long[] sentAt;
    final long[] seq;
    final ScaleSupport.Histogram hist = new ScaleSupport.Histogram();
    final CountDownLatch allOn;
    volatile long measureFrom = Long.MAX_VALUE;
    volatile long measureTo = Long.MAX_VALUE;
    volatile boolean sending = true;
    final AtomicInteger outstanding = new AtomicInteger();
    long errors;

    Load(int n) {
      this.n = n;
      sessions = new Session[n];
      orders = new NewOrderSingle[n];
      clOrdIdFields = new quickfix.field.ClOrdID[n];
      transactTimes = new StringField[n];
      inFlight = new String[n];
      sentAt = new long[n];
      seq = new long[n];
      allOn = new CountDownLatch(n);
      for (int k = 0; k < n; k++) {
        index.put(new SessionID(ScaleSupport.BEGIN_STRING, client(k), "VENUE"), k);
        NewOrderSingle o = new NewOrderSingle();
        o.setString(109, "CLIENT1"); // ClientID (not in FIX 4.4 NewOrderSingle: no typed setter)
        o.setString(55, "EUR/USD");
        o.setChar(54, '1');
        o.setString(38, "100");
        o.setChar(40, '2');
        o.setString(44, "1.2345");
        orders[k] = o;
        clOrdIdFields[k] = new quickfix.field.ClOrdID();
        transactTimes[k] = new StringField(60);
      }
    }

    @Override public void onLogon(SessionID s) {
      super.onLogon(s);
      allOn.countDown();
    }

    /**
     * Sends session k's next order; synchronized per order object (main sends the first).
     * Allocates nothing per order: session k's reused order, ClOrdID and StringField(60), the
     * ClOrdID from the shared table (built on the fly past {@link #PREBUILT_IDS} orders of one
     * session), TransactTime formatted at most once per millisecond for all sessions.
     */
    void send(int k) {
      NewOrderSingle o = orders[k];
      synchronized (o) {
        long next = ++seq[k];
        String id = next <= clOrdIds.length ? clOrdIds[(int) next - 1] : "C" + next;
        quickfix.field.ClOrdID clOrdId = clOrdIdFields[k];
        clOrdId.setValue(id);
        o.set(clOrdId);
        StringField transactTime = transactTimes[k];
        transactTime.setValue(clock.now());
        o.setField(transactTime);
        inFlight[k] = id;
        outstanding.incrementAndGet();
        sentAt[k] = System.nanoTime();
        if (!sessions[k].send(o)) {
          outstanding.decrementAndGet();
          System.err.println("load: send failed on " + client(k));
        }
      }
    }

    @Override public void fromApp(Message m, SessionID s) throws FieldNotFound {
      long t2 = System.nanoTime();
      Integer k = index.get(s);
      if (k == null || !m.getHeader().getString(MsgType.FIELD).equals(MsgType.EXECUTION_REPORT)) return;
      NewOrderSingle o = orders[k];
      synchronized (o) {
        if (!m.getString(11).equals(inFlight[k])) {
          errors++;
          System.err.println("load: " + client(k) + " ClOrdID " + m.getString(11) + " != " + inFlight[k]);
          return;
        }
        long t1 = sentAt[k];
        if (t1 >= measureFrom && t2 < measureTo) {
          synchronized (hist) {
            hist.record(t2 - t1);
          }
        }
        outstanding.decrementAndGet();
      }
      if (sending) send(k);
    }
  }

  static void load(int n, int port, int seconds) throws Exception {
    Load app = new Load(n);
    SessionSettings settings = commonSettings(false, port);
    settings.setString("TargetCompID", "VENUE");
    for (int k = 0; k < n; k++) {
      settings.setString(new SessionID(ScaleSupport.BEGIN_STRING, client(k), "VENUE"),
          "ConnectionType", "initiator");
    }
    SocketInitiator initiator = new SocketInitiator(app, new MemoryStoreFactory(), settings,
        ScaleSupport.NO_LOG, new quickfix.fix44.MessageFactory());
    long start = System.nanoTime();
    initiator.start(); // creates the sessions
    for (int k = 0; k < n; k++) {
      app.sessions[k] = Session.lookupSession(new SessionID(ScaleSupport.BEGIN_STRING, client(k), "VENUE"));
    }
    boolean all = app.allOn.await(120, TimeUnit.SECONDS);
    long logonAllNs = System.nanoTime() - start;
    if (!all) {
      System.err.println("FATAL: only " + app.loggedOn.get() + " of " + n + " logged on in 120 s");
      Runtime.getRuntime().halt(1);
    }
    System.err.printf(java.util.Locale.ROOT, "load: %d sessions logged on in %.1f ms%n", n, logonAllNs / 1e6);

    // 1 s of warm-up (as Peregrine's load generator), then S seconds measured
    long from = System.nanoTime() + 1_000_000_000L;
    app.measureFrom = from;
    app.measureTo = from + seconds * 1_000_000_000L;
    for (int k = 0; k < n; k++) app.send(k);
    Thread.sleep((seconds + 1) * 1000L);
    app.sending = false;
    long drainUntil = System.nanoTime() + 10_000_000_000L;
    while (app.outstanding.get() > 0 && System.nanoTime() < drainUntil) Thread.sleep(10);
    long rt;
    long min, max, sum, p50, p90, p99, p999;
    synchronized (app.hist) {
      rt = app.hist.count;
      min = rt == 0 ? 0 : app.hist.min;
      max = app.hist.max;
      sum = app.hist.sum;
      p50 = app.hist.pct(0.50);
      p90 = app.hist.pct(0.90);
      p99 = app.hist.pct(0.99);
      p999 = app.hist.pct(0.999);
    }
    double rate = rt / (double) seconds;
    ScaleSupport.printLine(ScaleSupport.json(
        "engine", ScaleSupport.ENGINE,
        "case", "sessions-" + n,
        "unit", "ns",
        "min", min,
        "p50", p50,
        "mean", rt == 0 ? 0.0 : sum / (double) rt,
        "p90", p90,
        "p99", p99,
        "p999", p999,
        "max", max,
        "throughput_per_s", Math.round(rate),
        "round_trips", rt,
        "sessions", n,
        "seconds", seconds,
        "logon_all_ms", Math.round(logonAllNs / 1e6 * 10) / 10.0,
        "settings", "load generator: QuickFIX/J 2.3.1 SocketInitiator, " + n + " sessions"
            + " CLIENTk->VENUE, default single-threaded event handling, MemoryStoreFactory,"
            + " UseDataDictionary=N, no logs, SocketTcpNoDelay=Y, ResetOnLogon=Y; one order in"
            + " flight per session, the next sent from fromApp; 1 s warm-up, then round trips whose"
            + " order was sent and answered in the " + seconds + " s window, 1 us histogram"
            + " buckets; logon_all_ms from"
            + " SocketInitiator.start() to the last onLogon; harness: one reused NewOrderSingle,"
            + " ClOrdID and StringField(60) per session, ClOrdIDs C1, C2, ... per session from a"
            + " table of " + PREBUILT_IDS + " built before start(), TransactTime formatted at most"
            + " once per ms; "
            + Harness.jvmSettings().replace(", System.nanoTime per-op timing", "")));
    System.err.println("load: " + rt + " round trips, " + app.errors + " ClOrdID mismatches,"
        + " " + app.outstanding.get() + " still outstanding; logging out");
    initiator.stop(true);
    System.exit(app.errors == 0 && app.outstanding.get() == 0 ? 0 : 1);
  }
}
