package peregrine.peers;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import quickfix.Log;
import quickfix.LogFactory;
import quickfix.SessionID;
import quickfix.UtcTimestampPrecision;
import quickfix.field.converter.UtcTimestampConverter;

/**
 * Shared support of the QuickFIX/J scale peers (BENCHMARKS.md section 5; {@link Stream},
 * {@link ManySessions}): "--key value" arguments, the no-op log factory (no message or event
 * logging), nearest-rank statistics, a fixed-bucket latency histogram and the JSON line read by
 * the Rust driver (crates/peregrine-bench/src/peers.rs). What each program does and prints:
 * peers/README.md, section "Scale".
 */
final class ScaleSupport {
  private ScaleSupport() {}

  static final String ENGINE = "quickfixj";
  static final String BEGIN_STRING = "FIX.4.4";

  /** A scale program's body, given its command-line arguments. */
  interface Program {
    void run(String[] argv) throws Exception;
  }

  /**
   * Runs {@code program}; anything it throws is printed and ends the JVM at once with status 1
   * (QuickFIX/J's non-daemon threads would otherwise keep it alive).
   */
  static void runOrHalt(String[] argv, Program program) {
    try {
      program.run(argv);
    } catch (Throwable t) {
      System.err.println("FATAL: " + t);
      t.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  /** "--key value" pairs; every key must be one of {@code known}. */
  static Map<String, String> args(String[] argv, String usage, String... known) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String k = argv[i];
      if (k.equals("--help") || k.equals("-h")) {
        System.err.println(usage);
        System.exit(0);
      }
      if (!Arrays.asList(known).contains(k) || i + 1 >= argv.length) {
        System.err.println((i + 1 >= argv.length ? "missing value for " : "unknown argument ") + k);
        System.err.println(usage);
        System.exit(2);
      }
      m.put(k, argv[++i]);
    }
    return m;
  }

  static String need(Map<String, String> a, String key, String usage) {
    String v = a.get(key);
    if (v == null) {
      System.err.println(key + " is required");
      System.err.println(usage);
      System.exit(2);
    }
    return v;
  }

  /** No message log and no event log: QuickFIX/J falls back to a screen log without a factory. */
  static final LogFactory NO_LOG = (SessionID id) -> new Log() {
    @Override public void clear() {}
    @Override public void onIncoming(String m) {}
    @Override public void onOutgoing(String m) {}
    @Override public void onEvent(String m) {}
    @Override public void onErrorEvent(String m) {
      System.err.println("quickfixj error event [" + id + "]: " + m);
    }
  };

  /**
   * Ids {@code prefix + (i + 1)} for i in [0, n): built before a run so that its loop takes them
   * from the table instead of building a String per message.
   */
  static String[] idTable(String prefix, int n) {
    String[] t = new String[n];
    for (int i = 0; i < n; i++) t[i] = prefix + (i + 1);
    return t;
  }

  /**
   * TransactTime(60) as QuickFIX/J writes it (UTC, milliseconds: "yyyyMMdd-HH:mm:ss.SSS", its
   * {@code UtcTimestampConverter}), formatted at most once per millisecond: {@link #now} returns
   * the same String until the wall clock's millisecond moves. Harnesses put it in a reused
   * {@code StringField(60)}: QuickFIX/J's typed {@code set(TransactTime)} does not keep the field
   * object, it formats the value into a new StringField on every call
   * ({@code FieldMap.setUtcTimeStamp}). Thread-safe: Strings are immutable, the cache is guarded.
   */
  static final class MillisTimestamp {
    private long ms = Long.MIN_VALUE;
    private String value;

    synchronized String now() {
      long t = System.currentTimeMillis();
      if (t != ms) {
        ms = t;
        value = UtcTimestampConverter.convert(
            LocalDateTime.ofInstant(Instant.ofEpochMilli(t), ZoneOffset.UTC),
            UtcTimestampPrecision.MILLIS);
      }
      return value;
    }
  }

  /** Nearest rank: the value at index ceil(q*n)-1 of a sorted array. */
  static long pct(long[] sorted, double q) {
    int n = sorted.length;
    long idx = (long) Math.ceil(q * n);
    if (idx < 1) idx = 1;
    if (idx > n) idx = n;
    return sorted[(int) idx - 1];
  }

  /**
   * Latency histogram with 1 microsecond buckets up to 1 s and one overflow bucket (its
   * percentiles then report the largest value seen). Written by one thread.
   */
  static final class Histogram {
    private static final int BUCKETS = 1_000_000;
    private final long[] counts = new long[BUCKETS + 1];
    long count;
    long sum;
    long min = Long.MAX_VALUE;
    long max;

    void record(long ns) {
      if (ns < 0) ns = 0;
      long us = ns / 1000;
      counts[us >= BUCKETS ? BUCKETS : (int) us]++;
      count++;
      sum += ns;
      if (ns < min) min = ns;
      if (ns > max) max = ns;
    }

    /** Upper edge (ns) of the bucket holding the nearest-rank q-quantile; capped at max. */
    long pct(double q) {
      if (count == 0) return 0;
      long rank = (long) Math.ceil(q * count);
      if (rank < 1) rank = 1;
      long seen = 0;
      for (int i = 0; i <= BUCKETS; i++) {
        seen += counts[i];
        if (seen >= rank) return i == BUCKETS ? max : Math.min(max, (i + 1) * 1000L - 1);
      }
      return max;
    }
  }

  static String json(Object... kv) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < kv.length; i += 2) {
      if (i > 0) sb.append(',');
      sb.append('"').append(kv[i]).append("\":");
      Object v = kv[i + 1];
      if (v instanceof String) sb.append('"').append(Harness.jsonEscape((String) v)).append('"');
      else if (v instanceof Double) sb.append(String.format(Locale.ROOT, "%.1f", (Double) v));
      else sb.append(v);
    }
    return sb.append('}').toString();
  }

  /** The one result line on stdout. */
  static void printLine(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static void ready() {
    System.out.println("ready");
    System.out.flush();
  }
}
