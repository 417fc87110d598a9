package peregrine.peers;

import java.util.List;
import quickfix.DataDictionary;
import quickfix.InvalidMessage;
import quickfix.Message;
import quickfix.StringField;

/**
 * Peregrine peer harness: QuickFIX/J 2.3.1 codec cases of BENCHMARKS.md section 1. One JSON
 * object per case on stdout; progress on stderr.
 */
public final class CodecBench {
  private static final String ENGINE = "quickfixj";

  static final String ER_BODY =
      "35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|"
          + "150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|";
  static final String NOS_BODY =
      "35=D|49=SENDER|56=TARGET|34=100|52=20240115-10:30:00.000|11=CLORD001|55=AAPL|54=1|"
          + "60=20240115-10:30:00.000|38=1000|40=2|44=150.00|59=0|";

  private static void expect(String got, String want, String what) {
    if (!want.equals(got)) Harness.fail(what + ": expected '" + want + "', got '" + got + "'");
  }

  public static void main(String[] argv) throws Exception {
    List<String> all = List.of("er_parse_read4", "nos_parse_read4", "er_parse", "nos_encode");
    Harness.Args args = Harness.parse(argv, all, 1_000_000, 2_000_000, "peregrine.peers.CodecBench");

    final DataDictionary dd = new DataDictionary(args.dict);
    final String er = Harness.frame("FIX.4.4", ER_BODY);
    final String nos = Harness.frame("FIX.4.4", NOS_BODY);
    System.err.println("ER : " + Harness.pipes(er));
    System.err.println("NOS: " + Harness.pipes(nos));

    // ---- startup checks: expected values, and validation rejects a wrong CheckSum.
    final Message msg = new Message(); // reused by every parse case
    msg.clear();
    msg.fromString(er, dd, true);
    if (msg.getException() != null) Harness.fail("ER parse recorded " + msg.getException());
    expect(msg.getString(37), "ORD123456", "ER 37");
    expect(msg.getString(17), "EXEC789012", "ER 17");
    expect(msg.getString(54), "1", "ER 54");
    expect(msg.getHeader().getString(35), "8", "ER 35");
    expect(msg.getString(44), "150.50", "ER 44");
    msg.clear();
    msg.fromString(nos, dd, true);
    if (msg.getException() != null) Harness.fail("NOS parse recorded " + msg.getException());
    expect(msg.getString(11), "CLORD001", "NOS 11");
    expect(msg.getString(55), "AAPL", "NOS 55");
    expect(msg.getString(54), "1", "NOS 54");
    expect(msg.getHeader().getString(35), "D", "NOS 35");

    int p = er.lastIndexOf("10=");
    char d = er.charAt(p + 5);
    String badCk = er.substring(0, p + 5) + (d == '9' ? '0' : (char) (d + 1)) + er.substring(p + 6);
    boolean rejected = false;
    try {
      msg.clear();
      msg.fromString(badCk, dd, true);
    } catch (InvalidMessage e) {
      rejected = true;
      System.err.println("check: wrong CheckSum rejected (" + e.getMessage() + ")");
    }
    if (!rejected) Harness.fail("fromString(validate=true) accepted a wrong CheckSum");
    // BodyLength: QuickFIX/J checks it in its framing decoder (FIXMessageDecoder), not in
    // Message.fromString; report what fromString does with a wrong one.
    int q = er.indexOf("9=");
    int e = er.indexOf(Harness.SOH, q);
    int len = Integer.parseInt(er.substring(q + 2, e));
    String badLen = er.substring(0, q + 2) + (len + 1) + er.substring(e);
    // keep the CheckSum right for the altered bytes, so only BodyLength is wrong
    badLen = reframeChecksum(badLen);
    boolean lenRejected = false;
    try {
      msg.clear();
      msg.fromString(badLen, dd, true);
      lenRejected = msg.getException() != null;
    } catch (InvalidMessage ex) {
      lenRejected = true;
    }
    System.err.println("check: wrong BodyLength (CheckSum correct) "
        + (lenRejected ? "rejected" : "ACCEPTED by Message.fromString (QFJ checks BodyLength "
            + "in FIXMessageDecoder framing, not in fromString)"));

    // ---- encode: reused Message, pre-built field objects (values fixed strings).
    final StringField f8 = new StringField(8, "FIX.4.4");
    final StringField f35 = new StringField(35, "D");
    final StringField f49 = new StringField(49, "SENDER");
    final StringField f56 = new StringField(56, "TARGET");
    final StringField f34 = new StringField(34, "100");
    final StringField f52 = new StringField(52, "20240115-10:30:00.000");
    final StringField f11 = new StringField(11, "CLORD001");
    final StringField f55 = new StringField(55, "AAPL");
    final StringField f54 = new StringField(54, "1");
    final StringField f60 = new StringField(60, "20240115-10:30:00.000");
    final StringField f38 = new StringField(38, "1000");
    final StringField f40 = new StringField(40, "2");
    final StringField f44 = new StringField(44, "150.00");
    final StringField f59 = new StringField(59, "0");
    final Message out = new Message();
    final Message.Header h = out.getHeader();
    Harness.Op encode = () -> {
      h.setField(f8);
      h.setField(f35);
      h.setField(f49);
      h.setField(f56);
      h.setField(f34);
      h.setField(f52);
      out.setField(f11);
      out.setField(f55);
      out.setField(f54);
      out.setField(f60);
      out.setField(f38);
      out.setField(f40);
      out.setField(f44);
      out.setField(f59);
      String wire = out.toString();
      Harness.sink(wire.length() + wire.charAt(wire.length() - 2));
    };
    encode.run();
    if (!Harness.sameMessage(out.toString(), nos, "nos_encode")) {
      Harness.fail("encoded NOS differs from the reference");
    }

    Harness.Op erParse = () -> {
      msg.clear();
      msg.fromString(er, dd, true);
      Harness.sink(msg.getHeader().getString(9));
    };
    Harness.Op erParseRead4 = () -> {
      msg.clear();
      msg.fromString(er, dd, true);
      Harness.sink(msg.getString(37));
      Harness.sink(msg.getString(17));
      Harness.sink(msg.getString(54));
      Harness.sink(msg.getHeader().getString(35));
    };
    Harness.Op nosParseRead4 = () -> {
      msg.clear();
      msg.fromString(nos, dd, true);
      Harness.sink(msg.getString(11));
      Harness.sink(msg.getString(55));
      Harness.sink(msg.getString(54));
      Harness.sink(msg.getHeader().getString(35));
    };

    final String parseSettings = "reused quickfix.Message: clear() then fromString(str, FIX44 "
        + "DataDictionary, doValidation=true) (validates header order and CheckSum; QFJ checks "
        + "BodyLength in its FIXMessageDecoder framing, not in fromString; groups parsed via dd, "
        + "no dd.validate of message content); ";
    final String common = "; quickfixj-core 2.3.1, " + Harness.jvmSettings();

    Harness.runCases(ENGINE, args, common, c -> {
      switch (c) {
        case "er_parse_read4":
          return new Harness.Case(erParseRead4,
              parseSettings + "then getString(37,17,54) and getHeader().getString(35)");
        case "nos_parse_read4":
          return new Harness.Case(nosParseRead4,
              parseSettings + "then getString(11,55,54) and getHeader().getString(35)");
        case "er_parse":
          return new Harness.Case(erParse, parseSettings + "parse only");
        case "nos_encode":
          return new Harness.Case(encode,
              "reused quickfix.Message: setField of 6 header + 8 body pre-built StringField "
              + "objects (overwrite), then toString() (computes BodyLength and CheckSum; QFJ orders "
              + "fields by tag after 8/9/35, same field set as the reference)");
        default:
          throw new IllegalStateException(c);
      }
    });
  }

  /** Recomputes the CheckSum of a framed message (used to alter only BodyLength). */
  private static String reframeChecksum(String m) {
    int p = m.lastIndexOf("10=");
    String head = m.substring(0, p);
    int sum = 0;
    for (int i = 0; i < head.length(); i++) sum += head.charAt(i);
    return head + "10=" + String.format("%03d", sum % 256) + Harness.SOH;
  }
}
