package peregrine.peers;

import java.io.File;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import quickfix.Application;
import quickfix.Connector;
import quickfix.FieldNotFound;
import quickfix.FileLogFactory;
import quickfix.FileStoreFactory;
import quickfix.Log;
import quickfix.LogFactory;
import quickfix.MemoryStoreFactory;
import quickfix.Message;
import quickfix.MessageStoreFactory;
import quickfix.Session;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.SocketAcceptor;
import quickfix.SocketInitiator;
import quickfix.StringField;
import quickfix.UtcTimestampPrecision;
import quickfix.field.ClOrdID;
import quickfix.field.TransactTime;
import quickfix.field.converter.UtcTimestampConverter;
import quickfix.fix44.ExecutionReport;
import quickfix.fix44.NewOrderSingle;

/**
 * BENCHMARKS.md §4 (the FIX Antenna experiment) with QuickFIX/J 2.3.1: the round trip of a
 * NewOrderSingle and its ExecutionReport between two processes over TCP on 127.0.0.1, one order
 * in flight, with QuickFIX/J's session layer (sequence numbers, store, validation) on both sides.
 * The contract with the Rust driver is peers/two-process-harnesses.md (§4).
 *
 * <pre>
 * run.sh RoundTrip --role acceptor  --config balanced|optimized|fsync|production --port P --dir DIR --dict D
 * run.sh RoundTrip --role initiator --config balanced|optimized|fsync|production --port P --dir DIR --dict D
 *                  [--iters N (100000)] [--warmup W (10000)]
 * </pre>
 *
 * <p>The acceptor (VENUE) prints {@code ready} once it listens and answers each NewOrderSingle
 * from {@code fromApp} with an ExecutionReport; it exits by itself once its session has logged
 * on and off again (or on SIGTERM). The initiator (CLIENT) sends the first order once logged on
 * and each next one from the {@code fromApp} callback that receives the previous report (on
 * QuickFIX/J's own thread); t1 = {@code System.nanoTime()} right before {@code Session.send},
 * t2 right after the report's ClOrdID is checked in {@code fromApp} (QuickFIX/J has parsed and
 * validated it by then). W warm-up round trips are discarded, N are kept in an exact array; then
 * it logs out, prints one JSON line and exits 0: exact nearest-rank percentiles and the whole
 * distribution, {@code hdr}, bucketed as a 3-significant-digit HdrHistogram would (see
 * {@link #hdrPairs}), both computed after the measured loop.
 *
 * <p>Settings (all stated in the JSON {@code settings} string, see {@link #describe}):
 * <ul>
 *   <li>{@code SocketAcceptor}/{@code SocketInitiator}: QuickFIX/J's default threading
 *       (ThreadPerConnector: a MINA NioProcessor thread decodes frames and hands them through a
 *       blocking queue to the one "QFJ Message Processor" thread, which runs the session layer,
 *       the store and the callbacks). QuickFIX/J publishes no latency tuning guide;
 *       ThreadedSocket* (ThreadPerSession) has the same queue hop per session, so with one
 *       session it changes nothing.
 *   <li>{@code SocketTcpNoDelay=Y} (QuickFIX/J's default, set explicitly);
 *       {@code SocketSynchronousWrites=N} (the default; its manual says Y "is not generally
 *       recommended as it may result in performance degradation").
 *   <li>balanced: {@code FileStoreFactory}, {@code FileStoreSync=N} (default), validation with
 *       the dictionary ({@code UseDataDictionary=Y}, {@code AllowUnknownMsgFields=Y} because the
 *       contract's ClientID(109) is not a NewOrderSingle/ExecutionReport field in FIX44.xml, see
 *       {@link #ALLOW_UNKNOWN}; every other validation setting at its default); fsync: the same with {@code FileStoreSync=Y} (the store's files opened "rwd"
 *       and the header file's descriptor synced on each write); optimized:
 *       {@code MemoryStoreFactory}, {@code UseDataDictionary=N} (the parser still checks the
 *       CheckSum, the MINA decoder the BodyLength and framing); production: balanced with
 *       the message and event logs on, QuickFIX/J's {@link FileLogFactory} with
 *       {@code FileLogPath=DIR/log} and its defaults otherwise (every message, heartbeats too,
 *       and the events; each line written to its unbuffered FileOutputStream as it comes; no
 *       timestamps on message lines).
 *   <li>No logging in the other configs: a no-op {@link LogFactory} (without one QuickFIX/J
 *       writes a screen log on stdout); error events go to stderr.
 * </ul>
 *
 * <p>The harness itself allocates nothing per round trip: ClOrdIDs are pre-built, the order and
 * the report are reused objects whose fields are reused {@link StringField}s (the report's
 * copies point at the Strings QuickFIX/J parsed), OrderID/ExecID come from a pre-built table
 * (built on the fly past 262,144 orders), TransactTime is formatted once per millisecond into a
 * reused StringField(60) (the typed {@code set(TransactTime)} would build a new field per call).
 * QuickFIX/J allocates inside its own calls (parsing, field maps, formatting,
 * MINA buffers); {@code jvm_alloc_bytes_per_op} reports what the whole initiator JVM allocated
 * per measured round trip.
 */
public final class RoundTrip {
  static final String ENGINE = "quickfixj";
  static final String CLIENT = "CLIENT";
  static final String VENUE = "VENUE";
  /** Orders whose OrderID/ExecID strings the acceptor builds before the first order. */
  static final int PREBUILT_IDS = 1 << 18;
  /** A wait (logon, one round trip, logout) longer than this fails the run. */
  static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

  private RoundTrip() {}

  // ---- arguments --------------------------------------------------------------------------

  static final class Args {
    String role;
    String config;
    int port = -1;
    String dir;
    String dict;
    int iters = 100_000;
    int warmup = 10_000;
  }

  static void usage() {
    System.err.println("usage: run.sh RoundTrip --role acceptor|initiator"
        + " --config balanced|optimized|fsync|production --port P --dir DIR --dict FIX44.xml"
        + " [--iters N (100000)] [--warmup W (10000)]");
  }

  static Args parse(String[] argv) {
    Args a = new Args();
    for (int i = 0; i < argv.length; i++) {
      String k = argv[i];
      if (k.equals("--help") || k.equals("-h")) {
        usage();
        System.exit(0);
      }
      if (i + 1 >= argv.length) {
        System.err.println("missing value for " + k);
        usage();
        System.exit(2);
      }
      String v = argv[++i];
      switch (k) {
        case "--role": a.role = v; break;
        case "--config": a.config = v; break;
        case "--port": a.port = Integer.parseInt(v); break;
        case "--dir": a.dir = v; break;
        case "--dict": a.dict = v; break;
        case "--iters": a.iters = Integer.parseInt(v); break;
        case "--warmup": a.warmup = Integer.parseInt(v); break;
        default:
          System.err.println("unknown argument " + k);
          usage();
          System.exit(2);
      }
    }
    boolean ok = ("acceptor".equals(a.role) || "initiator".equals(a.role))
        && ("balanced".equals(a.config) || "optimized".equals(a.config)
            || "fsync".equals(a.config) || "production".equals(a.config))
        && a.port > 0 && a.dir != null && a.dict != null && a.iters > 0 && a.warmup >= 0
        && (long) a.iters + a.warmup < Integer.MAX_VALUE;
    if (!ok) {
      usage();
      System.exit(2);
    }
    return a;
  }

  // ---- QuickFIX/J configuration -----------------------------------------------------------

  static boolean fileStore(Args a) {
    return !a.config.equals("optimized");
  }

  /** The one session of this process, configured in code (no .cfg file). */
  static SessionSettings settings(Args a, SessionID id) {
    SessionSettings s = OneSession.socketSettings(id, a.role.equals("acceptor"), a.port);
    s.setString(id, "StartTime", "00:00:00");
    s.setString(id, "EndTime", "00:00:00");
    s.setString(id, "SocketSynchronousWrites", "N");
    if (fileStore(a)) {
      s.setString(id, "FileStorePath", new File(a.dir, "store").getPath());
      s.setString(id, "FileStoreSync", a.config.equals("fsync") ? "Y" : "N");
      s.setString(id, "UseDataDictionary", "Y");
      s.setString(id, "DataDictionary", a.dict);
      // The contract's messages carry ClientID(109), which FIX 4.4 (and the QuickFIX FIX44.xml)
      // no longer defines for NewOrderSingle or ExecutionReport: with the default N every order
      // is rejected ("Tag not defined for this message type"). See ALLOW_UNKNOWN.
      s.setString(id, "AllowUnknownMsgFields", "Y");
    } else {
      s.setString(id, "UseDataDictionary", "N");
    }
    return s;
  }

  static MessageStoreFactory storeFactory(Args a, SessionSettings s) {
    return fileStore(a) ? new FileStoreFactory(s) : new MemoryStoreFactory();
  }

  /** production: the message and event logs on, the other configs without. */
  static boolean logs(Args a) {
    return a.config.equals("production");
  }

  /**
   * production: QuickFIX/J's FileLogFactory in DIR/log (the driver checks afterwards that it holds
   * every order and report); the other configs: {@link #NO_LOG}.
   */
  static LogFactory logFactory(Args a, SessionSettings s, SessionID id) {
    if (!logs(a)) return NO_LOG;
    s.setString(id, "FileLogPath", new File(a.dir, "log").getPath());
    return new FileLogFactory(s);
  }

  /** No message or event log; error events (none expected) go to stderr. */
  static final LogFactory NO_LOG = sessionId -> new Log() {
    @Override public void clear() {}
    @Override public void onIncoming(String message) {}
    @Override public void onOutgoing(String message) {}
    @Override public void onEvent(String text) {}
    @Override public void onErrorEvent(String text) {
      System.err.println("[roundtrip] quickfixj error event: " + text);
    }
  };

  static final String ALLOW_UNKNOWN = "AllowUnknownMsgFields=Y (not the default: the"
      + " contract's ClientID(109) is not defined for NewOrderSingle/ExecutionReport in FIX44.xml;"
      + " QuickFIX/J then skips only the tag-in-message check for tags < 5000; tag numbers,"
      + " formats, values, required fields still checked)";

  static String describe(Args a) {
    String store = fileStore(a)
        ? "FileStoreFactory (FileStorePath=DIR/store, FileStoreSync=" + (a.config.equals("fsync")
            ? "Y: files opened \"rwd\", header file fd synced per write)" : "N, the default)")
        : "MemoryStoreFactory";
    String validation = fileStore(a)
        ? "UseDataDictionary=Y DataDictionary=" + a.dict + ", " + ALLOW_UNKNOWN + " (every"
            + " other validation setting at its default: ValidateFieldsOutOfOrder,"
            + " ValidateFieldsHaveValues, ValidateUserDefinedFields, ValidateUnorderedGroupFields,"
            + " ValidateIncomingMessage=Y, CheckLatency=Y)"
        : "UseDataDictionary=N (CheckSum by the parser, BodyLength/framing by the MINA decoder)";
    return "QuickFIX/J 2.3.1 SocketAcceptor/SocketInitiator (default ThreadPerConnector: MINA"
        + " NioProcessor I/O thread -> blocking queue -> one QFJ Message Processor thread running"
        + " session, store and callbacks; blocking, no spinning; QuickFIX/J publishes no latency"
        + " tuning guide), " + store + ", validation " + validation + ", SocketTcpNoDelay=Y (the"
        + " default), SocketSynchronousWrites=N (the default; Y is 'not generally recommended'),"
        + " ResetOnLogon=Y, HeartBtInt=30, " + (logs(a)
            ? "message and event logs on (FileLogFactory, FileLogPath=DIR/log, its defaults"
                + " otherwise: FileLogHeartbeats=Y, no timestamps on message lines,"
                + " FileIncludeMilliseconds=N; each line written to its FileOutputStream as it"
                + " comes, no buffer)"
            : "no logging (no-op LogFactory)") + ","
        + " fix44.MessageFactory; initiator sends each next order from fromApp on the QFJ"
        + " thread, t1 before Session.send, t2 after the ER's ClOrdID check; reused"
        + " NewOrderSingle/ExecutionReport and StringFields, pre-built ClOrdIDs and"
        + " OrderID/ExecID, TransactTime formatted once per ms into a reused StringField; exact sorted array of"
        + " samples, nearest-rank percentiles; " + Harness.jvmSettings();
  }

  // ---- acceptor ---------------------------------------------------------------------------

  /**
   * VENUE: answers each NewOrderSingle with the ExecutionReport of one reused {@link OrderAck}
   * (its copied fields are reused {@link StringField}s pointing at the Strings QuickFIX/J parsed).
   */
  static final class Venue extends Base {
    final OrderAck ack = new OrderAck(PREBUILT_IDS);
    final CountDownLatch loggedOut = new CountDownLatch(1);
    int orders;

    @Override
    public void fromApp(Message m, SessionID id) throws FieldNotFound {
      if (!m.getHeader().getString(35).equals("D")) {
        System.err.println("[roundtrip] acceptor: ignoring MsgType " + m.getHeader().getString(35));
        return;
      }
      int n = orders++;
      if (!session.send(ack.answer(m, n))) {
        System.err.println("[roundtrip] acceptor: Session.send failed");
      }
    }

    @Override
    public void onLogout(SessionID id) {
      if (session != null) loggedOut.countDown();
    }
  }

  static void runAcceptor(Args a) throws Exception {
    SessionID id = new SessionID("FIX.4.4", VENUE, CLIENT);
    SessionSettings s = settings(a, id);
    Venue venue = new Venue();
    SocketAcceptor acceptor = new SocketAcceptor(venue, storeFactory(a, s), s,
        logFactory(a, s, id),
        new quickfix.fix44.MessageFactory());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stopQuietly(acceptor, true)));
    acceptor.start(); // binds the listening socket before returning
    System.err.println("[roundtrip] quickfixj acceptor " + a.config + " listening on 127.0.0.1:"
        + a.port + "; settings: " + describe(a));
    System.out.println("ready");
    System.out.flush();
    venue.loggedOut.await(); // the initiator logged on, then off: the run is over
    System.err.println("[roundtrip] acceptor: session logged out after " + venue.orders
        + " orders; exiting");
    stopQuietly(acceptor, false);
    System.exit(0);
  }

  // ---- initiator --------------------------------------------------------------------------

  /**
   * CLIENT: keeps one order in flight; the next order goes out from the callback that received
   * the previous ExecutionReport.
   */
  static final class Client extends Base {
    final int warmup;
    final int total;
    final String[] clOrdIds;
    final long[] samples;
    final NewOrderSingle nos = new NewOrderSingle();
    final ClOrdID clOrdId = new ClOrdID();
    /**
     * TransactTime as a reused StringField(60) holding a String formatted once per millisecond:
     * QuickFIX/J's typed {@code set(TransactTime)} keeps no field object, it formats the value
     * into a new StringField on every call ({@code FieldMap.setUtcTimeStamp}).
     */
    final StringField transactTime = new StringField(TransactTime.FIELD);
    final CountDownLatch loggedOn = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1);
    volatile int completed; // round trips answered (progress for the watchdog)
    volatile String failure;
    int next; // index of the order in flight
    long t1;
    long lastMillis = Long.MIN_VALUE;
    long measureStartNs;
    long measureEndNs;
    long allocStart;
    long allocEnd;
    long gcCountStart;
    long gcTimeStart;
    long gcCountEnd;
    long gcTimeEnd;

    Client(int warmup, int iters) {
      this.warmup = warmup;
      this.total = warmup + iters;
      this.samples = new long[iters];
      this.clOrdIds = new String[total];
      for (int i = 0; i < total; i++) clOrdIds[i] = String.format(Locale.ROOT, "C%09d", i + 1);
      nos.setString(109, "CLIENT1"); // ClientID
      nos.setString(55, "EUR/USD"); // Symbol
      nos.setString(54, "1"); // Side Buy
      nos.setString(38, "100"); // OrderQty
      nos.setString(40, "2"); // OrdType Limit
      nos.setString(44, "1.2345"); // Price
    }

    /**
     * The first order goes out from here, on QuickFIX/J's thread like every later one, so all
     * of the harness state stays on that one thread.
     */
    @Override
    public void onLogon(SessionID id) {
      super.onLogon(id);
      loggedOn.countDown();
      sendNext();
    }

    /** A disconnect before the last report fails the run at once (not after the timeout). */
    @Override
    public void onLogout(SessionID id) {
      int c = completed;
      if (c < total) fail("session logged out or disconnected after " + c + " round trips");
    }

    /** Fills in order {@code next} and sends it; t1 is taken right before Session.send. */
    void sendNext() {
      int i = next;
      if (i == warmup) {
        measureStartNs = System.nanoTime();
        allocStart = allocatedBytes();
        gcCountStart = gcCount();
        gcTimeStart = gcTimeMs();
      }
      clOrdId.setValue(clOrdIds[i]);
      nos.set(clOrdId);
      long ms = System.currentTimeMillis();
      if (ms != lastMillis) {
        lastMillis = ms;
        transactTime.setValue(UtcTimestampConverter.convert(
            LocalDateTime.ofInstant(Instant.ofEpochMilli(ms), ZoneOffset.UTC),
            UtcTimestampPrecision.MILLIS));
      }
      nos.setField(transactTime);
      t1 = System.nanoTime();
      if (!session.send(nos)) fail("Session.send returned false at order " + (i + 1));
    }

    @Override
    public void fromApp(Message m, SessionID id) throws FieldNotFound {
      String type = m.getHeader().getString(35);
      String clOrd = m.getString(11);
      if (!type.equals("8") || !clOrd.equals(clOrdIds[next])) {
        fail("expected ExecutionReport for " + clOrdIds[next] + ", got 35=" + type + " 11="
            + clOrd);
        return;
      }
      long t2 = System.nanoTime();
      int i = next;
      if (i >= warmup) samples[i - warmup] = t2 - t1;
      completed = i + 1;
      if (i + 1 == total) {
        measureEndNs = t2;
        allocEnd = allocatedBytes();
        gcCountEnd = gcCount();
        gcTimeEnd = gcTimeMs();
        done.countDown();
        return;
      }
      next = i + 1;
      sendNext();
    }

    void fail(String why) {
      failure = why;
      done.countDown();
    }
  }

  static void runInitiator(Args a) throws Exception {
    SessionID id = new SessionID("FIX.4.4", CLIENT, VENUE);
    SessionSettings s = settings(a, id);
    Client client = new Client(a.warmup, a.iters);
    SocketInitiator initiator = new SocketInitiator(client, storeFactory(a, s), s,
        logFactory(a, s, id),
        new quickfix.fix44.MessageFactory());
    System.err.println("[roundtrip] quickfixj initiator " + a.config + ": warmup " + a.warmup
        + ", iters " + a.iters + " against 127.0.0.1:" + a.port);
    initiator.start();
    if (!client.loggedOn.await(TIMEOUT_NS, TimeUnit.NANOSECONDS)) {
      die("no logon within 60 s");
    }
    // Watchdog: fail if one round trip takes longer than the timeout.
    int seen = -1;
    long lastProgress = System.nanoTime();
    while (!client.done.await(1, TimeUnit.SECONDS)) {
      int c = client.completed;
      if (c != seen) {
        seen = c;
        lastProgress = System.nanoTime();
      } else if (System.nanoTime() - lastProgress > TIMEOUT_NS) {
        die("no ExecutionReport for order " + (c + 1) + " within 60 s");
      }
    }
    if (client.failure != null) die(client.failure);

    long[] v = client.samples;
    int n = v.length;
    double wallNs = (double) (client.measureEndNs - client.measureStartNs);
    long sum = 0;
    for (long x : v) sum += x;
    Arrays.sort(v);
    double allocPerOp = (double) (client.allocEnd - client.allocStart) / n;
    String gc = (client.gcCountEnd - client.gcCountStart) + " GCs ("
        + (client.gcTimeEnd - client.gcTimeStart) + " ms) during the measured phase";

    initiator.stop(); // Logout, waits for the acceptor's Logout (QuickFIX/J's LogoutTimeout)
    String line = String.format(Locale.ROOT,
        "{\"engine\":\"%s\",\"case\":\"%s\",\"unit\":\"ns\",\"iters\":%d,\"warmup\":%d,"
            + "\"min\":%d,\"p50\":%d,\"mean\":%.1f,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d,"
            + "\"throughput_per_s\":%.0f,\"jvm_alloc_bytes_per_op\":%.1f,\"settings\":\"%s\","
            + "\"hdr\":%s}",
        ENGINE, a.config, n, a.warmup, v[0], Harness.pct(v, n, 0.50), (double) sum / n,
        Harness.pct(v, n, 0.90), Harness.pct(v, n, 0.99), Harness.pct(v, n, 0.999), v[n - 1],
        wallNs > 0 ? n * 1e9 / wallNs : 0.0, allocPerOp,
        Harness.jsonEscape(describe(a) + "; " + gc), hdrPairs(v, n));
    System.out.println(line);
    System.out.flush();
    System.err.println("[roundtrip] initiator done: p50 " + Harness.pct(v, n, 0.50) + " ns, p99 "
        + Harness.pct(v, n, 0.99) + " ns, " + gc);
    System.exit(0);
  }

  /**
   * The whole distribution for the JSON field {@code hdr}, in the form of Peregrine's result line:
   * {@code [[value_ns,count],...]}, one pair per occupied bucket, values ascending. Each sample is
   * rounded down to the lowest value of the bucket an HdrHistogram with 3 significant digits
   * (and a lowest discernible value of 1 ns, as the driver's) puts it in: 2048 sub-buckets, so
   * values below 2048 ns are kept exactly and above that only their 11 most significant bits
   * (a value is lowered by less than 1/1024 of itself). The driver records these pairs into such
   * a histogram, so every value lands in the bucket the exact sample would have. Called on the
   * sorted samples after the measured loop; the percentiles of the line stay exact.
   */
  static String hdrPairs(long[] sorted, int n) {
    StringBuilder b = new StringBuilder(64 + Math.min(n, 8192) * 16);
    b.append('[');
    long bucket = -1;
    long count = 0;
    for (int i = 0; i < n; i++) {
      long lo = hdrLowest(sorted[i]);
      if (lo != bucket) {
        if (count > 0) appendPair(b, bucket, count);
        bucket = lo;
        count = 0;
      }
      count++;
    }
    if (count > 0) appendPair(b, bucket, count);
    return b.append(']').toString();
  }

  private static void appendPair(StringBuilder b, long value, long count) {
    if (b.length() > 1) b.append(',');
    b.append('[').append(value).append(',').append(count).append(']');
  }

  /** The lowest value of {@code v}'s bucket in a 3-significant-digit HdrHistogram (see above). */
  static long hdrLowest(long v) {
    if (v <= 0) return 0;
    int shift = 64 - Long.numberOfLeadingZeros(v) - 11;
    return shift > 0 ? (v >>> shift) << shift : v;
  }

  // ---- shared -----------------------------------------------------------------------------

  /** Callbacks neither side uses; the session is looked up once at logon. */
  abstract static class Base implements Application {
    volatile Session session;

    @Override public void onCreate(SessionID id) {}
    @Override public void onLogon(SessionID id) {
      session = Session.lookupSession(id);
    }
    @Override public void onLogout(SessionID id) {}
    @Override public void toAdmin(Message m, SessionID id) {}
    @Override public void fromAdmin(Message m, SessionID id) {}
    @Override public void toApp(Message m, SessionID id) {}
  }

  static void stopQuietly(Connector c, boolean force) {
    try {
      c.stop(force);
    } catch (RuntimeException e) {
      System.err.println("[roundtrip] stop: " + e);
    }
  }

  static void die(String why) {
    System.err.println("[roundtrip] FATAL: " + why);
    System.exit(1);
  }

  /** Bytes allocated so far by every live JVM thread (HotSpot's per-thread counters). */
  static long allocatedBytes() {
    ThreadMXBean t = ManagementFactory.getThreadMXBean();
    if (!(t instanceof com.sun.management.ThreadMXBean)) return 0;
    long[] b = ((com.sun.management.ThreadMXBean) t).getThreadAllocatedBytes(t.getAllThreadIds());
    long sum = 0;
    for (long x : b) if (x > 0) sum += x;
    return sum;
  }

  static long gcCount() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionCount());
    }
    return n;
  }

  static long gcTimeMs() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      n += Math.max(0, gc.getCollectionTime());
    }
    return n;
  }

  public static void main(String[] argv) throws Exception {
    Args a = parse(argv);
    new File(a.dir).mkdirs();
    if (a.role.equals("acceptor")) runAcceptor(a);
    else runInitiator(a);
  }
}
