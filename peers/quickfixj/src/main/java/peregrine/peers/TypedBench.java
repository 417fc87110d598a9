package peregrine.peers;

import java.time.LocalDateTime;
import java.util.List;
import quickfix.DataDictionary;
import quickfix.FieldNotFound;
import quickfix.InvalidMessage;
import quickfix.Message;
import quickfix.field.BeginString;
import quickfix.field.ClOrdID;
import quickfix.field.LegRatioQty;
import quickfix.field.LegSide;
import quickfix.field.LegStipulationType;
import quickfix.field.LegStipulationValue;
import quickfix.field.LegSymbol;
import quickfix.field.MDEntryType;
import quickfix.field.MDReqID;
import quickfix.field.MarketDepth;
import quickfix.field.MsgSeqNum;
import quickfix.field.MsgType;
import quickfix.field.NestedPartyID;
import quickfix.field.NestedPartyIDSource;
import quickfix.field.NestedPartyRole;
import quickfix.field.NestedPartySubID;
import quickfix.field.NestedPartySubIDType;
import quickfix.field.NoLegStipulations;
import quickfix.field.NoLegs;
import quickfix.field.NoMDEntryTypes;
import quickfix.field.NoNestedPartyIDs;
import quickfix.field.NoNestedPartySubIDs;
import quickfix.field.NoPartyIDs;
import quickfix.field.NoPartySubIDs;
import quickfix.field.NoRelatedSym;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.PartyID;
import quickfix.field.PartyIDSource;
import quickfix.field.PartyRole;
import quickfix.field.PartySubID;
import quickfix.field.PartySubIDType;
import quickfix.field.QuoteStatusReqID;
import quickfix.field.SenderCompID;
import quickfix.field.SendingTime;
import quickfix.field.Side;
import quickfix.field.SubscriptionRequestType;
import quickfix.field.Symbol;
import quickfix.field.TargetCompID;
import quickfix.field.TransactTime;
import quickfix.fix44.MarketDataRequest;
import quickfix.fix44.NewOrderMultileg;
import quickfix.fix44.QuoteStatusRequest;

/**
 * Peregrine peer harness: QuickFIX/J 2.3.1 typed messages with repeating groups
 * (quickfix.fix44.*), BENCHMARKS.md section 2. Messages: peers/typed-messages.md. One JSON
 * object per case on stdout; progress on stderr.
 */
public final class TypedBench {
  private static final String ENGINE = "quickfixj";

  // Canonical messages (dictionary field order), see peers/typed-messages.md.
  static final String HDR = "49=SENDER|56=TARGET|34=1|52=20240115-10:30:00.000|";
  static final String MDR_BODY = "35=V|" + HDR
      + "262=MDR0001|263=1|264=1|267=2|269=0|269=1|146=2|55=AAPL|55=MSFT|";
  static final String QSR_BODY = "35=a|" + HDR
      + "649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|448=PARTY2|447=D|452=3|";
  static final String QSRN_BODY = "35=a|" + HDR
      + "649=QSR0001|55=AAPL|453=2|448=PARTY1|447=D|452=1|802=2|523=SUB11|803=1|523=SUB12|803=2|"
      + "448=PARTY2|447=D|452=3|802=2|523=SUB21|803=1|523=SUB22|803=2|";
  static final String MLEG_BODY = "35=AB|" + HDR
      + "11=MLEG0001|54=1|55=SPRD|555=2|"
      + "600=AAPL|623=1|624=1|683=1|688=MINQTY|689=100|539=1|524=NPTY1|525=D|538=24|804=1|545=NSUB1|805=1|"
      + "600=MSFT|623=1|624=2|683=1|688=MINQTY|689=200|539=1|524=NPTY2|525=D|538=24|804=1|545=NSUB2|805=1|"
      + "60=20240115-10:30:00.000|38=10|40=1|";

  static final LocalDateTime TS = LocalDateTime.of(2024, 1, 15, 10, 30, 0, 0);

  /** The read functions report every typed value to a visitor. */
  interface V {
    void s(int tag, String v);

    void c(int tag, char v);

    void i(int tag, int v);

    void d(int tag, double v);

    void t(int tag, LocalDateTime v);
  }

  /** Timed runs: fold values into the sink. */
  static final class SinkV implements V {
    public void s(int tag, String v) { Harness.sink(v); }

    public void c(int tag, char v) { Harness.sink(v); }

    public void i(int tag, int v) { Harness.sink(v); }

    public void d(int tag, double v) { Harness.sink((long) (v * 16)); }

    public void t(int tag, LocalDateTime v) { Harness.sink(v.getNano() + v.getHour()); }
  }

  /** Startup check: renders "tag=value|" in read order, compared with the canonical body. */
  static final class RecordV implements V {
    final StringBuilder out = new StringBuilder();

    public void s(int tag, String v) { out.append(tag).append('=').append(v).append('|'); }

    public void c(int tag, char v) { out.append(tag).append('=').append(v).append('|'); }

    public void i(int tag, int v) { out.append(tag).append('=').append(v).append('|'); }

    public void d(int tag, double v) {
      out.append(tag).append('=').append(quickfix.field.converter.DoubleConverter.convert(v)).append('|');
    }

    public void t(int tag, LocalDateTime v) {
      out.append(tag).append('=').append(quickfix.field.converter.UtcTimestampConverter.convert(
          v, quickfix.UtcTimestampPrecision.MILLIS)).append('|');
    }
  }

  /**
   * The typed message and group objects one side (the writers, the readers) reuses: one list,
   * each side its own instances (fields of the side's own object, as before).
   */
  static class TypedObjects {
    final MarketDataRequest mdr = new MarketDataRequest();
    final MarketDataRequest.NoMDEntryTypes mdrTypes = new MarketDataRequest.NoMDEntryTypes();
    final MarketDataRequest.NoRelatedSym mdrSyms = new MarketDataRequest.NoRelatedSym();
    final QuoteStatusRequest qsr = new QuoteStatusRequest();
    final QuoteStatusRequest.NoPartyIDs party = new QuoteStatusRequest.NoPartyIDs();
    final QuoteStatusRequest.NoPartyIDs.NoPartySubIDs partySub =
        new QuoteStatusRequest.NoPartyIDs.NoPartySubIDs();
    final NewOrderMultileg nml = new NewOrderMultileg();
    final NewOrderMultileg.NoLegs leg = new NewOrderMultileg.NoLegs();
    final NewOrderMultileg.NoLegs.NoLegStipulations stip =
        new NewOrderMultileg.NoLegs.NoLegStipulations();
    final NewOrderMultileg.NoLegs.NoNestedPartyIDs nparty =
        new NewOrderMultileg.NoLegs.NoNestedPartyIDs();
    final NewOrderMultileg.NoLegs.NoNestedPartyIDs.NoNestedPartySubIDs nsub =
        new NewOrderMultileg.NoLegs.NoNestedPartyIDs.NoNestedPartySubIDs();
  }

  /** Writers: reused typed message and group objects; clear() then set everything. */
  static final class Writers extends TypedObjects {
    // pre-built field objects (harness side, built once)
    final BeginString begin = new BeginString("FIX.4.4");
    final MsgType mtV = new MsgType("V");
    final MsgType mtA = new MsgType("a");
    final MsgType mtAB = new MsgType("AB");
    final SenderCompID sender = new SenderCompID("SENDER");
    final TargetCompID target = new TargetCompID("TARGET");
    final MsgSeqNum seq = new MsgSeqNum(1);
    final SendingTime sending = new SendingTime(TS);
    final MDReqID mdReqId = new MDReqID("MDR0001");
    final SubscriptionRequestType subType = new SubscriptionRequestType('1');
    final MarketDepth depth = new MarketDepth(1);
    final MDEntryType bid = new MDEntryType('0');
    final MDEntryType offer = new MDEntryType('1');
    final Symbol aapl = new Symbol("AAPL");
    final Symbol msft = new Symbol("MSFT");
    final Symbol sprd = new Symbol("SPRD");
    final QuoteStatusReqID qsrId = new QuoteStatusReqID("QSR0001");
    final PartyID party1 = new PartyID("PARTY1");
    final PartyID party2 = new PartyID("PARTY2");
    final PartyIDSource propSrc = new PartyIDSource('D');
    final PartyRole role1 = new PartyRole(1);
    final PartyRole role3 = new PartyRole(3);
    final PartySubID sub11 = new PartySubID("SUB11");
    final PartySubID sub12 = new PartySubID("SUB12");
    final PartySubID sub21 = new PartySubID("SUB21");
    final PartySubID sub22 = new PartySubID("SUB22");
    final PartySubIDType subType1 = new PartySubIDType(1);
    final PartySubIDType subType2 = new PartySubIDType(2);
    final ClOrdID clOrdId = new ClOrdID("MLEG0001");
    final Side buy = new Side('1');
    final TransactTime transact = new TransactTime(TS);
    final OrderQty qty = new OrderQty(10);
    final OrdType market = new OrdType('1');
    final LegSymbol legAapl = new LegSymbol("AAPL");
    final LegSymbol legMsft = new LegSymbol("MSFT");
    final LegRatioQty ratio = new LegRatioQty(1);
    final LegSide legBuy = new LegSide('1');
    final LegSide legSell = new LegSide('2');
    final LegStipulationType stipType = new LegStipulationType("MINQTY");
    final LegStipulationValue stip100 = new LegStipulationValue("100");
    final LegStipulationValue stip200 = new LegStipulationValue("200");
    final NestedPartyID npty1 = new NestedPartyID("NPTY1");
    final NestedPartyID npty2 = new NestedPartyID("NPTY2");
    final NestedPartyIDSource nSrc = new NestedPartyIDSource('D');
    final NestedPartyRole nRole = new NestedPartyRole(24);
    final NestedPartySubID nsub1 = new NestedPartySubID("NSUB1");
    final NestedPartySubID nsub2 = new NestedPartySubID("NSUB2");
    final NestedPartySubIDType nSubType = new NestedPartySubIDType(1);


    void header(Message.Header h, MsgType mt) {
      h.setField(begin);
      h.setField(mt);
      h.setField(sender);
      h.setField(target);
      h.setField(seq);
      h.setField(sending);
    }

    String writeMdr() {
      mdr.clear();
      header(mdr.getHeader(), mtV);
      mdr.set(mdReqId);
      mdr.set(subType);
      mdr.set(depth);
      mdrTypes.set(bid);
      mdr.addGroup(mdrTypes);
      mdrTypes.set(offer);
      mdr.addGroup(mdrTypes);
      mdrSyms.set(aapl);
      mdr.addGroup(mdrSyms);
      mdrSyms.set(msft);
      mdr.addGroup(mdrSyms);
      return mdr.toString();
    }

    String writeQsr(boolean nested) {
      qsr.clear();
      header(qsr.getHeader(), mtA);
      qsr.set(qsrId);
      qsr.set(aapl);
      party.clear();
      party.set(party1);
      party.set(propSrc);
      party.set(role1);
      if (nested) {
        partySub.set(sub11);
        partySub.set(subType1);
        party.addGroup(partySub);
        partySub.set(sub12);
        partySub.set(subType2);
        party.addGroup(partySub);
      }
      qsr.addGroup(party);
      party.clear();
      party.set(party2);
      party.set(propSrc);
      party.set(role3);
      if (nested) {
        partySub.set(sub21);
        partySub.set(subType1);
        party.addGroup(partySub);
        partySub.set(sub22);
        partySub.set(subType2);
        party.addGroup(partySub);
      }
      qsr.addGroup(party);
      return qsr.toString();
    }

    void addLeg(LegSymbol sym, LegSide side, LegStipulationValue sv, NestedPartyID np,
        NestedPartySubID ns) {
      leg.clear();
      leg.set(sym);
      leg.set(ratio);
      leg.set(side);
      stip.set(stipType);
      stip.set(sv);
      leg.addGroup(stip);
      nparty.clear();
      nparty.set(np);
      nparty.set(nSrc);
      nparty.set(nRole);
      nsub.set(ns);
      nsub.set(nSubType);
      nparty.addGroup(nsub);
      leg.addGroup(nparty);
      nml.addGroup(leg);
    }

    String writeMultileg() {
      nml.clear();
      header(nml.getHeader(), mtAB);
      nml.set(clOrdId);
      nml.set(buy);
      nml.set(sprd);
      addLeg(legAapl, legBuy, stip100, npty1, nsub1);
      addLeg(legMsft, legSell, stip200, npty2, nsub2);
      nml.set(transact);
      nml.set(qty);
      nml.set(market);
      return nml.toString();
    }
  }

  /** Readers: reused typed message, group and field objects; typed getters. */
  static final class Readers extends TypedObjects {
    final DataDictionary dd;
    // field objects the getters fill
    final MsgType msgType = new MsgType();
    final SenderCompID sender = new SenderCompID();
    final TargetCompID target = new TargetCompID();
    final MsgSeqNum seq = new MsgSeqNum();
    final SendingTime sending = new SendingTime();
    final MDReqID mdReqId = new MDReqID();
    final SubscriptionRequestType subType = new SubscriptionRequestType();
    final MarketDepth depth = new MarketDepth();
    final NoMDEntryTypes noTypes = new NoMDEntryTypes();
    final MDEntryType entryType = new MDEntryType();
    final NoRelatedSym noSyms = new NoRelatedSym();
    final Symbol symbol = new Symbol();
    final QuoteStatusReqID qsrId = new QuoteStatusReqID();
    final NoPartyIDs noParties = new NoPartyIDs();
    final PartyID partyId = new PartyID();
    final PartyIDSource partySrc = new PartyIDSource();
    final PartyRole partyRole = new PartyRole();
    final NoPartySubIDs noSubs = new NoPartySubIDs();
    final PartySubID subId = new PartySubID();
    final PartySubIDType subIdType = new PartySubIDType();
    final ClOrdID clOrdId = new ClOrdID();
    final Side side = new Side();
    final TransactTime transact = new TransactTime();
    final OrderQty qty = new OrderQty();
    final OrdType ordType = new OrdType();
    final NoLegs noLegs = new NoLegs();
    final LegSymbol legSym = new LegSymbol();
    final LegRatioQty ratio = new LegRatioQty();
    final LegSide legSide = new LegSide();
    final NoLegStipulations noStips = new NoLegStipulations();
    final LegStipulationType stipType = new LegStipulationType();
    final LegStipulationValue stipValue = new LegStipulationValue();
    final NoNestedPartyIDs noNParties = new NoNestedPartyIDs();
    final NestedPartyID npId = new NestedPartyID();
    final NestedPartyIDSource npSrc = new NestedPartyIDSource();
    final NestedPartyRole npRole = new NestedPartyRole();
    final NoNestedPartySubIDs noNSubs = new NoNestedPartySubIDs();
    final NestedPartySubID nsId = new NestedPartySubID();
    final NestedPartySubIDType nsType = new NestedPartySubIDType();

    Readers(DataDictionary dd) {
      this.dd = dd;
    }

    private static void parse(Message m, String in, DataDictionary dd) throws InvalidMessage {
      m.clear(); // fromString does not clear: a reused message must be cleared first
      m.fromString(in, dd, true);
    }

    void header(Message.Header h, V v) throws FieldNotFound {
      v.s(35, h.getField(msgType).getValue());
      v.s(49, h.getField(sender).getValue());
      v.s(56, h.getField(target).getValue());
      v.i(34, h.getField(seq).getValue());
      v.t(52, h.getField(sending).getValue());
    }

    void readMdr(String in, V v) throws Exception {
      parse(mdr, in, dd);
      header(mdr.getHeader(), v);
      v.s(262, mdr.get(mdReqId).getValue());
      v.c(263, mdr.get(subType).getValue());
      v.i(264, mdr.get(depth).getValue());
      int n = mdr.get(noTypes).getValue();
      v.i(267, n);
      for (int k = 1; k <= n; k++) {
        mdr.getGroup(k, mdrTypes);
        v.c(269, mdrTypes.get(entryType).getValue());
      }
      n = mdr.get(noSyms).getValue();
      v.i(146, n);
      for (int k = 1; k <= n; k++) {
        mdr.getGroup(k, mdrSyms);
        v.s(55, mdrSyms.get(symbol).getValue());
      }
    }

    void readQsr(String in, V v, boolean nested) throws Exception {
      parse(qsr, in, dd);
      header(qsr.getHeader(), v);
      v.s(649, qsr.get(qsrId).getValue());
      v.s(55, qsr.get(symbol).getValue());
      int n = qsr.get(noParties).getValue();
      v.i(453, n);
      for (int k = 1; k <= n; k++) {
        qsr.getGroup(k, party);
        v.s(448, party.get(partyId).getValue());
        v.c(447, party.get(partySrc).getValue());
        v.i(452, party.get(partyRole).getValue());
        if (nested) {
          int m = party.get(noSubs).getValue();
          v.i(802, m);
          for (int j = 1; j <= m; j++) {
            party.getGroup(j, partySub);
            v.s(523, partySub.get(subId).getValue());
            v.i(803, partySub.get(subIdType).getValue());
          }
        }
      }
    }

    void readMultileg(String in, V v) throws Exception {
      parse(nml, in, dd);
      header(nml.getHeader(), v);
      v.s(11, nml.get(clOrdId).getValue());
      v.c(54, nml.get(side).getValue());
      v.s(55, nml.get(symbol).getValue());
      int n = nml.get(noLegs).getValue();
      v.i(555, n);
      for (int k = 1; k <= n; k++) {
        nml.getGroup(k, leg);
        v.s(600, leg.get(legSym).getValue());
        v.d(623, leg.get(ratio).getValue());
        v.c(624, leg.get(legSide).getValue());
        int ns = leg.get(noStips).getValue();
        v.i(683, ns);
        for (int j = 1; j <= ns; j++) {
          leg.getGroup(j, stip);
          v.s(688, stip.get(stipType).getValue());
          v.s(689, stip.get(stipValue).getValue());
        }
        int np = leg.get(noNParties).getValue();
        v.i(539, np);
        for (int j = 1; j <= np; j++) {
          leg.getGroup(j, nparty);
          v.s(524, nparty.get(npId).getValue());
          v.c(525, nparty.get(npSrc).getValue());
          v.i(538, nparty.get(npRole).getValue());
          int nsn = nparty.get(noNSubs).getValue();
          v.i(804, nsn);
          for (int q = 1; q <= nsn; q++) {
            nparty.getGroup(q, nsub);
            v.s(545, nsub.get(nsId).getValue());
            v.i(805, nsub.get(nsType).getValue());
          }
        }
      }
      v.t(60, nml.get(transact).getValue());
      v.d(38, nml.get(qty).getValue());
      v.c(40, nml.get(ordType).getValue());
    }
  }

  interface Reader {
    void read(String in, V v) throws Exception;
  }

  public static void main(String[] argv) throws Exception {
    List<String> all = List.of("write_mdr", "write_qsr_group", "write_qsr_nested",
        "write_multileg", "read_mdr", "read_qsr_group", "read_qsr_nested", "read_multileg");
    Harness.Args args = Harness.parse(argv, all, 500_000, 2_000_000, "peregrine.peers.TypedBench");

    final DataDictionary dd = new DataDictionary(args.dict);
    final String[] names = {"mdr", "qsr_group", "qsr_nested", "multileg"};
    final String[] bodies = {MDR_BODY, QSR_BODY, QSRN_BODY, MLEG_BODY};
    final String[] wires = new String[4];
    for (int k = 0; k < 4; k++) {
      wires[k] = Harness.frame("FIX.4.4", bodies[k]);
      System.err.println("canonical " + names[k] + ": " + Harness.pipes(wires[k]));
    }
    final String mdrWire = wires[0];
    final String qsrWire = wires[1];
    final String qsrnWire = wires[2];
    final String mlegWire = wires[3];

    final Writers w = new Writers();
    final Readers r = new Readers(dd);
    final Reader[] readers = {
      r::readMdr, (s, v) -> r.readQsr(s, v, false), (s, v) -> r.readQsr(s, v, true), r::readMultileg
    };

    // ---- startup checks ---------------------------------------------------------------------
    // 1. reading the canonical bytes yields exactly the canonical values, in order
    Message[] parsed = {r.mdr, r.qsr, r.qsr, r.nml};
    for (int k = 0; k < 4; k++) {
      RecordV rv = new RecordV();
      readers[k].read(wires[k], rv);
      if (parsed[k].getException() != null) {
        Harness.fail("parse of " + names[k] + " recorded " + parsed[k].getException());
      }
      if (!rv.out.toString().equals(bodies[k])) {
        Harness.fail("read " + names[k] + " mismatch:\n  got:  " + rv.out + "\n  want: " + bodies[k]);
      }
    }
    // 2. writing yields the canonical field set (same BodyLength/CheckSum), and it reads back
    String[] written = {w.writeMdr(), w.writeQsr(false), w.writeQsr(true), w.writeMultileg()};
    for (int k = 0; k < 4; k++) {
      if (!Harness.sameMessage(written[k], wires[k], names[k])) {
        Harness.fail("write " + names[k] + " differs from the canonical message");
      }
      RecordV rv = new RecordV();
      readers[k].read(written[k], rv);
      if (!rv.out.toString().equals(bodies[k])) {
        Harness.fail("write " + names[k] + " does not read back:\n  got:  " + rv.out);
      }
    }
    if (!w.writeMultileg().equals(w.writeMultileg())) Harness.fail("write_multileg not repeatable");
    // 3. validation rejects a wrong CheckSum on the typed parse
    int p = mlegWire.lastIndexOf("10=");
    char d = mlegWire.charAt(p + 5);
    String bad = mlegWire.substring(0, p + 5) + (d == '9' ? '0' : (char) (d + 1))
        + mlegWire.substring(p + 6);
    boolean rejected = false;
    try {
      r.nml.clear();
      r.nml.fromString(bad, dd, true);
    } catch (InvalidMessage e) {
      rejected = true;
    }
    if (!rejected) Harness.fail("typed fromString(validate=true) accepted a wrong CheckSum");
    System.err.println("startup checks passed");

    final V sv = new SinkV();
    final String common = "; quickfixj-core 2.3.1 + quickfixj-messages-fix44 2.3.1, "
        + Harness.jvmSettings();
    final String wset = "reused quickfix.fix44 typed message and group objects: msg.clear(), "
        + "header setField + typed set() of pre-built field objects, addGroup (copies the group) "
        + "per entry, then toString() (String, BodyLength and CheckSum computed)";
    final String rset = "reused quickfix.fix44 typed message: clear() then fromString(canonical "
        + "String, FIX44 DataDictionary, doValidation=true) (groups parsed via dd; CheckSum "
        + "checked, BodyLength is checked by QFJ's framing decoder, not here), then every field "
        + "via typed get(field).getValue() incl. header 35/49/56/34/52 and each group entry "
        + "(getGroup into reused typed group objects)";

    Harness.runCases(ENGINE, args, common, c -> {
      switch (c) {
        case "write_mdr":
          return new Harness.Case(() -> Harness.sink(w.writeMdr()), wset);
        case "write_qsr_group":
          return new Harness.Case(() -> Harness.sink(w.writeQsr(false)), wset);
        case "write_qsr_nested":
          return new Harness.Case(() -> Harness.sink(w.writeQsr(true)), wset);
        case "write_multileg":
          return new Harness.Case(() -> Harness.sink(w.writeMultileg()), wset);
        case "read_mdr":
          return new Harness.Case(() -> r.readMdr(mdrWire, sv), rset);
        case "read_qsr_group":
          return new Harness.Case(() -> r.readQsr(qsrWire, sv, false), rset);
        case "read_qsr_nested":
          return new Harness.Case(() -> r.readQsr(qsrnWire, sv, true), rset);
        case "read_multileg":
          return new Harness.Case(() -> r.readMultileg(mlegWire, sv), rset);
        default:
          throw new IllegalStateException(c);
      }
    });
  }
}
