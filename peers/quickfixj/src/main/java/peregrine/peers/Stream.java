package peregrine.peers;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.mina.core.session.IoSession;
import quickfix.Application;
import quickfix.FieldNotFound;
import quickfix.FileLogFactory;
import quickfix.FileStoreFactory;
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
import quickfix.field.ClOrdID;
import quickfix.field.MsgSeqNum;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.Price;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TransactTime;
import quickfix.fix44.NewOrderSingle;

/**
 * BENCHMARKS.md section 5, part 1 (streaming one way), QuickFIX/J 2.3.1 side.
 *
 * <p>{@code --role sender} (initiator CLIENT->VENUE) sends NewOrderSingles (ClOrdID unique,
 * Symbol, Side, TransactTime, OrderQty, OrdType, Price; no ClientID(109), which FIX44.xml does
 * not define for 35=D and full validation would reject, as in Peregrine's sender) through
 * {@code Session.send} as fast as the session layer allows for S + 1.2 seconds, then logs out.
 * QuickFIX/J's send never blocks: it queues the encoded message on MINA's unbounded write queue.
 * The sender therefore bounds that queue itself, on the public API: a user
 * {@code IoFilterChainBuilder} ({@code SessionConnector.setIoFilterChainBuilder}) captures the
 * session's MINA {@code IoSession}, and the sending thread parks 20 us at a time while
 * {@code IoSession.getScheduledWriteBytes()} exceeds {@link #MAX_QUEUED_BYTES} (1 MiB). The send
 * loop allocates nothing per message: one reused NewOrderSingle, ClOrdID and StringField(60),
 * ClOrdIDs (C1, C2, ...) from a table built before the logon, TransactTime formatted at most once
 * per millisecond ({@link ScaleSupport.MillisTimestamp}).
 *
 * <p>{@code --role receiver} (acceptor VENUE->CLIENT) validates every message with the FIX44
 * dictionary (UseDataDictionary=Y: QuickFIX/J validates before fromApp), checks in fromApp that
 * MsgSeqNum is exactly the previous one + 1 (admin messages included), counts messages from the
 * first application message and reports the rate over [1 s, 1 s + S): one JSON line
 * ({@code stream-memory} / {@code stream-file} / {@code stream-file-logs}), per-100 ms interval rates as the percentiles.
 *
 * <p>Both: SocketAcceptor / SocketInitiator with the default single-threaded event handling,
 * MemoryStoreFactory or FileStoreFactory (FileStoreSync=N), no logs (with --logs Y: FileLogFactory in
 * DIR/log), TCP_NODELAY, ResetOnLogon=Y.
 */
public final class Stream {
  private Stream() {}

  static final String USAGE = "usage: run.sh Stream --role receiver|sender --store memory|file"
      + " [--logs Y|N] --port P --dir DIR --dict FIX44.xml --seconds S";

  /** The sender parks while MINA has more than this many bytes scheduled for writing. */
  static final long MAX_QUEUED_BYTES = 1L << 20;

  static final long INTERVAL_NS = 100_000_000L;

  /**
   * The sender builds (S + 2) x this many ClOrdIDs before it logs on, at most
   * {@link #MAX_PREBUILT_IDS}: enough for S + 1.2 s at 400,000 msg/s (the QuickFIX/J sender alone
   * has reached ~300,000 msg/s here). ~56 bytes of heap each (~155 MB of the 1 GiB for S = 5);
   * past the table an id is built per message and the count is printed.
   */
  static final long PREBUILT_IDS_PER_SECOND = 400_000L;

  static final int MAX_PREBUILT_IDS = 1 << 22;

  public static void main(String[] argv) {
    ScaleSupport.runOrHalt(argv, Stream::run);
  }

  static void run(String[] argv) throws Exception {
    Map<String, String> a = ScaleSupport.args(argv, USAGE,
        "--role", "--store", "--logs", "--port", "--dir", "--dict", "--seconds");
    String role = ScaleSupport.need(a, "--role", USAGE);
    String store = ScaleSupport.need(a, "--store", USAGE);
    int port = Integer.parseInt(ScaleSupport.need(a, "--port", USAGE));
    String dir = ScaleSupport.need(a, "--dir", USAGE);
    String dict = ScaleSupport.need(a, "--dict", USAGE);
    int seconds = Integer.parseInt(ScaleSupport.need(a, "--seconds", USAGE));
    String logsArg = a.getOrDefault("--logs", "N");
    if (!logsArg.equals("Y") && !logsArg.equals("N")) {
      System.err.println("--logs must be Y or N");
      System.exit(2);
    }
    boolean logs = logsArg.equals("Y");
    if (!store.equals("memory") && !store.equals("file")) {
      System.err.println("--store must be memory or file");
      System.exit(2);
    }
    boolean receiver;
    if (role.equals("receiver")) receiver = true;
    else if (role.equals("sender")) receiver = false;
    else {
      System.err.println("--role must be receiver or sender");
      System.exit(2);
      return;
    }
    if (seconds < 1) seconds = 1;

    SessionID id = receiver
        ? new SessionID(ScaleSupport.BEGIN_STRING, "VENUE", "CLIENT")
        : new SessionID(ScaleSupport.BEGIN_STRING, "CLIENT", "VENUE");
    SessionSettings settings = OneSession.socketSettings(id, receiver, port);
    settings.setString(id, "UseDataDictionary", "Y");
    settings.setString(id, "DataDictionary", dict);
    settings.setString(id, "FileStorePath", dir);
    settings.setString(id, "FileStoreSync", "N");
    MessageStoreFactory stores = store.equals("file")
        ? new FileStoreFactory(settings) : new MemoryStoreFactory();
    String storeSetting = store.equals("file")
        ? "FileStoreFactory (FileStorePath=--dir, FileStoreSync=N: written to the OS per message,"
            + " not fsynced)"
        : "MemoryStoreFactory (keeps every sent message for resend)";
    // --logs Y: production's message and event logs, QuickFIX/J's FileLogFactory (its defaults:
    // every message, heartbeats too, a line each with its time) in DIR/log.
    LogFactory logFactory = ScaleSupport.NO_LOG;
    if (logs) {
      settings.setString(id, "FileLogPath", new java.io.File(dir, "log").getPath());
      logFactory = new FileLogFactory(settings);
    }
    String common = "QuickFIX/J 2.3.1, " + storeSetting + ", SocketAcceptor/SocketInitiator with"
        + " the default single-threaded event handling (one 'QFJ Message Processor' thread + MINA"
        + " I/O threads), SocketTcpNoDelay=Y, ResetOnLogon=Y, HeartBtInt=30, "
        + (logs ? "message and event logs on (FileLogFactory, FileLogPath=DIR/log, its defaults)"
            : "no message/event log");
    String caseName = "stream-" + store + (logs ? "-logs" : "");
    if (receiver) receive(id, settings, stores, logFactory, caseName, seconds, common);
    else send(id, settings, stores, logFactory, seconds, common);
  }

  // ---- receiver ---------------------------------------------------------------------------

  /** Counts written by the QuickFIX/J thread in fromApp, read by main under the same lock. */
  static final class Counts {
    long firstNs;
    long windowStart;
    long windowEnd;
    long inWindow;
    long total;
    long[] perInterval;
    int lastSeq;
    String error;
  }

  static void receive(SessionID id, SessionSettings settings, MessageStoreFactory stores,
      LogFactory logFactory, String caseName, int seconds, String common) throws Exception {
    final Counts c = new Counts();
    c.perInterval = new long[seconds * 10];
    final CountDownLatch first = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1); // error or logout
    final CountDownLatch loggedOut = new CountDownLatch(1);
    final long windowNs = seconds * 1_000_000_000L;

    Application app = new Application() {
      @Override public void onCreate(SessionID s) {}
      @Override public void onLogon(SessionID s) {
        System.err.println("receiver: logged on " + s);
      }
      @Override public void onLogout(SessionID s) {
        System.err.println("receiver: logged out " + s);
        loggedOut.countDown();
        done.countDown();
      }
      @Override public void toAdmin(Message m, SessionID s) {
        try {
          if (m.getHeader().getString(MsgType.FIELD).equals(MsgType.REJECT)) {
            fail("receiver rejected a message: " + m.toString().replace('\u0001', '|'));
          }
        } catch (FieldNotFound e) {
          // no MsgType: not possible for an outgoing message
        }
      }
      @Override public void fromAdmin(Message m, SessionID s) throws FieldNotFound {
        int seq = m.getHeader().getInt(MsgSeqNum.FIELD);
        synchronized (c) {
          // the Logon (seq 1 after ResetOnLogon) starts the sequence
          if (c.lastSeq != 0 && seq != c.lastSeq + 1) gap(seq);
          c.lastSeq = seq;
        }
      }
      @Override public void toApp(Message m, SessionID s) {}
      @Override public void fromApp(Message m, SessionID s) throws FieldNotFound {
        long now = System.nanoTime();
        int seq = m.getHeader().getInt(MsgSeqNum.FIELD);
        boolean isFirst = false;
        synchronized (c) {
          if (seq != c.lastSeq + 1) gap(seq);
          c.lastSeq = seq;
          if (c.total == 0) {
            c.firstNs = now;
            c.windowStart = now + 1_000_000_000L;
            c.windowEnd = c.windowStart + windowNs;
            isFirst = true;
          }
          c.total++;
          if (now >= c.windowStart && now < c.windowEnd) {
            c.inWindow++;
            c.perInterval[(int) ((now - c.windowStart) / INTERVAL_NS)]++;
          }
        }
        if (isFirst) first.countDown();
      }

      private void gap(int seq) {
        fail("MsgSeqNum " + seq + " after " + c.lastSeq + " (expected " + (c.lastSeq + 1) + ")");
      }

      private void fail(String why) {
        synchronized (c) {
          if (c.error == null) c.error = why;
        }
        done.countDown();
      }
    };

    SocketAcceptor acceptor =
        new SocketAcceptor(app, stores, settings, logFactory, new quickfix.fix44.MessageFactory());
    acceptor.start();
    ScaleSupport.ready();
    System.err.println("receiver: listening, " + caseName + ", window " + seconds + " s");

    // Wait for the first application message, then for the window to close (or the stream to
    // end, or an error).
    while (!first.await(100, TimeUnit.MILLISECONDS)) {
      if (errorOf(c) != null) break;
    }
    long windowEnd;
    synchronized (c) {
      windowEnd = c.windowEnd;
    }
    while (errorOf(c) == null) {
      long left = windowEnd - System.nanoTime();
      if (left <= 0) break;
      if (done.await(Math.min(left, 50_000_000L), TimeUnit.NANOSECONDS)) {
        if (errorOf(c) != null) break;
        // logged out: the sender stopped; more than one interval early means no full window
        long early = windowEnd - System.nanoTime();
        if (early > INTERVAL_NS) {
          fatal("the stream ended " + early / 1_000_000 + " ms before the window closed");
        }
        break;
      }
    }
    String error = errorOf(c);
    if (error != null) fatal(error);

    long inWindow;
    long total;
    long[] intervals;
    synchronized (c) {
      inWindow = c.inWindow;
      total = c.total;
      intervals = c.perInterval.clone();
    }
    long[] rates = new long[intervals.length];
    for (int i = 0; i < intervals.length; i++) rates[i] = intervals[i] * (1_000_000_000L / INTERVAL_NS);
    Arrays.sort(rates);
    double throughput = inWindow / (double) seconds;
    String settingsLine = "receiver: validation UseDataDictionary=Y with --dict (FIX44.xml),"
        + " QuickFIX/J's default Validate* settings, validated before fromApp; MsgSeqNum"
        + " continuity checked in fromApp/fromAdmin; sender (QuickFIX/J): Session.send from one"
        + " application thread, bounded by parking 20 us while MINA's"
        + " IoSession.getScheduledWriteBytes() > " + MAX_QUEUED_BYTES + " (IoSession captured by"
        + " a user IoFilterChainBuilder; QuickFIX/J's own write queue is unbounded); " + common
        + "; " + Harness.jvmSettings().replace(", System.nanoTime per-op timing", "")
        + "; rate over [1 s, 1 s + " + seconds + " s) after the first application message,"
        + " percentiles over 100 ms intervals";
    ScaleSupport.printLine(ScaleSupport.json(
        "engine", ScaleSupport.ENGINE,
        "case", caseName,
        "unit", "msg/s",
        "min", rates[0],
        "p50", ScaleSupport.pct(rates, 0.50),
        "mean", throughput,
        "p90", ScaleSupport.pct(rates, 0.90),
        "p99", ScaleSupport.pct(rates, 0.99),
        "p999", ScaleSupport.pct(rates, 0.999),
        "max", rates[rates.length - 1],
        "throughput_per_s", Math.round(throughput),
        "messages", inWindow,
        "seq_errors", 0,
        "seconds", seconds,
        "settings", settingsLine));
    System.err.println("receiver: " + inWindow + " messages in the window, " + total
        + " so far in all; waiting for the sender's logout");
    loggedOut.await(10, TimeUnit.SECONDS);
    synchronized (c) {
      System.err.println("receiver: " + c.total + " application messages in all, last MsgSeqNum "
          + c.lastSeq);
      if (c.error != null) fatal(c.error);
    }
    acceptor.stop(true);
    System.exit(0);
  }

  private static String errorOf(Counts c) {
    synchronized (c) {
      return c.error;
    }
  }

  private static void fatal(String why) {
    System.err.println("FATAL: " + why);
    System.err.flush();
    Runtime.getRuntime().halt(1);
  }

  // ---- sender -----------------------------------------------------------------------------

  static void send(SessionID id, SessionSettings settings, MessageStoreFactory stores,
      LogFactory logFactory, int seconds, String common) throws Exception {
    final CountDownLatch loggedOn = new CountDownLatch(1);
    final CountDownLatch loggedOut = new CountDownLatch(1);
    Application app = new Application() {
      @Override public void onCreate(SessionID s) {}
      @Override public void onLogon(SessionID s) {
        loggedOn.countDown();
      }
      @Override public void onLogout(SessionID s) {
        loggedOut.countDown();
      }
      @Override public void toAdmin(Message m, SessionID s) {}
      @Override public void fromAdmin(Message m, SessionID s) {
        try {
          if (m.getHeader().getString(MsgType.FIELD).equals(MsgType.REJECT)) {
            System.err.println("sender: the receiver rejected a message: "
                + m.toString().replace('\u0001', '|'));
          }
        } catch (FieldNotFound e) {
          // no MsgType: not possible after parsing
        }
      }
      @Override public void toApp(Message m, SessionID s) {}
      @Override public void fromApp(Message m, SessionID s) {}
    };
    // The ClOrdIDs of the run, built before the logon (see PREBUILT_IDS_PER_SECOND).
    final String[] clOrdIds = ScaleSupport.idTable("C",
        (int) Math.min(MAX_PREBUILT_IDS, (seconds + 2L) * PREBUILT_IDS_PER_SECOND));
    final IoSession[] io = new IoSession[1];
    SocketInitiator initiator =
        new SocketInitiator(app, stores, settings, logFactory, new quickfix.fix44.MessageFactory());
    initiator.setIoFilterChainBuilder(chain -> {
      synchronized (io) {
        io[0] = chain.getSession();
      }
    });
    initiator.start();
    if (!loggedOn.await(60, TimeUnit.SECONDS)) {
      System.err.println("FATAL: no logon within 60 s");
      Runtime.getRuntime().halt(1);
    }
    IoSession ioSession;
    synchronized (io) {
      ioSession = io[0];
    }
    if (ioSession == null) {
      System.err.println("FATAL: the IoFilterChainBuilder did not see the MINA session");
      Runtime.getRuntime().halt(1);
    }
    Session session = Session.lookupSession(id);

    NewOrderSingle nos = new NewOrderSingle();
    nos.set(new Symbol("EUR/USD"));
    nos.set(new Side(Side.BUY));
    nos.set(new OrderQty(100));
    nos.set(new OrdType(OrdType.LIMIT));
    nos.set(new Price(1.2345));
    // Reused field objects: FieldMap.setField(StringField) keeps the object itself, and
    // Session.send serializes the message (Message.toString, then store and MINA get the String)
    // before it returns, so setting new values on the same objects for the next message is safe.
    ClOrdID clOrdId = new ClOrdID();
    StringField transactTime = new StringField(TransactTime.FIELD);
    ScaleSupport.MillisTimestamp clock = new ScaleSupport.MillisTimestamp();

    long start = System.nanoTime();
    // S + 1 s, + 0.2 s so that the receiver's window (from its first message) is covered
    long end = start + (seconds + 1) * 1_000_000_000L + 200_000_000L;
    long sent = 0;
    long waits = 0;
    long maxQueued = 0;
    long builtOnTheFly = 0;
    // The loop allocates nothing per message: ClOrdIDs come from the table built before the
    // logon (C1, C2, ...; past it, counted below, each is built on the fly), set on the one reused
    // ClOrdID field; TransactTime is a String formatted at most once per millisecond
    // (MillisTimestamp) set on one reused StringField(60); the order itself is one reused
    // NewOrderSingle. What QuickFIX/J allocates inside Session.send is the engine's own work.
    while (true) {
      if ((sent & 63) == 0 && System.nanoTime() >= end) break;
      long queued = ioSession.getScheduledWriteBytes();
      if (queued > maxQueued) maxQueued = queued;
      while (queued > MAX_QUEUED_BYTES) {
        waits++;
        LockSupport.parkNanos(20_000);
        queued = ioSession.getScheduledWriteBytes();
      }
      if (sent < clOrdIds.length) {
        clOrdId.setValue(clOrdIds[(int) sent]);
      } else {
        clOrdId.setValue("C" + (sent + 1));
        builtOnTheFly++;
      }
      nos.set(clOrdId);
      transactTime.setValue(clock.now());
      nos.setField(transactTime);
      if (!session.send(nos)) {
        System.err.println("FATAL: Session.send returned false after " + sent + " messages");
        Runtime.getRuntime().halt(1);
      }
      if (sent == 0) System.err.println("sender: first message " + nos.toString().replace('\u0001', '|'));
      sent++;
    }
    long elapsed = System.nanoTime() - start;
    System.err.printf(java.util.Locale.ROOT,
        "sender: %d messages in %.3f s (%.0f msg/s), %d waits on the bound, max scheduled"
            + " write bytes seen %d, %d ClOrdIDs built on the fly past the %d pre-built;"
            + " logging out%n",
        sent, elapsed / 1e9, sent / (elapsed / 1e9), waits, maxQueued, builtOnTheFly,
        clOrdIds.length);
    System.err.println("sender settings: " + common + "; bound: park 20 us while"
        + " IoSession.getScheduledWriteBytes() > " + MAX_QUEUED_BYTES + "; harness loop: one"
        + " reused NewOrderSingle, ClOrdID and StringField(60), " + clOrdIds.length
        + " ClOrdIDs pre-built ((S + 2) x " + PREBUILT_IDS_PER_SECOND + ", at most "
        + MAX_PREBUILT_IDS + "), TransactTime formatted at most once per ms; "
        + Harness.jvmSettings().replace(", System.nanoTime per-op timing", ""));
    session.logout("done");
    if (!loggedOut.await(30, TimeUnit.SECONDS)) {
      System.err.println("sender: no logout answer within 30 s");
    }
    initiator.stop(true);
    System.exit(0);
  }
}
