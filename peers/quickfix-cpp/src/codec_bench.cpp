// Peregrine peer harness: QuickFIX C++ (Debian libquickfix-dev 1.15.1) codec cases of
// BENCHMARKS.md section 1. One JSON object per case on stdout; progress on stderr.
#include <quickfix/DataDictionary.h>
#include <quickfix/Exceptions.h>
#include <quickfix/FieldNumbers.h>
#include <quickfix/Message.h>

#include "bench_common.h"

namespace {

const char* ENGINE = "quickfix-cpp";

const char* ER_BODY =
    "35=8|49=SENDER|56=TARGET|34=12345|52=20240115-10:30:00.123|37=ORD123456|17=EXEC789012|"
    "150=0|39=0|54=1|151=1000|14=0|6=0|55=AAPL|38=1000|44=150.50|";
const char* NOS_BODY =
    "35=D|49=SENDER|56=TARGET|34=100|52=20240115-10:30:00.000|11=CLORD001|55=AAPL|54=1|"
    "60=20240115-10:30:00.000|38=1000|40=2|44=150.00|59=0|";

void expect(const std::string& got, const char* want, const char* what) {
  if (got != want) bench::fail(std::string(what) + ": expected '" + want + "', got '" + got + "'");
}

// Folds a field value into the sink: length and first byte.
inline void consume(const std::string& s) {
  bench::sink(s.size() + (s.empty() ? 0 : (unsigned char)s[0]));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> all = {"er_parse_read4", "nos_parse_read4", "er_parse",
                                        "nos_encode"};
  bench::Args args = bench::parse_args(argc, argv, all);

  FIX::DataDictionary dd = bench::load_dictionary<FIX::DataDictionary>(args.dict);

  const std::string er = bench::frame("FIX.4.4", ER_BODY);
  const std::string nos = bench::frame("FIX.4.4", NOS_BODY);
  std::fprintf(stderr, "ER : %s\nNOS: %s\n", bench::pipes(er).c_str(), bench::pipes(nos).c_str());

  // ---- startup checks: parsing yields the expected values, and validation really rejects a
  //      wrong CheckSum and a wrong BodyLength (otherwise we would be timing less work).
  FIX::Message msg;  // reused by every parse case
  {
    msg.setString(er, true, &dd);
    expect(msg.getField(FIX::FIELD::OrderID), "ORD123456", "ER 37");
    expect(msg.getField(FIX::FIELD::ExecID), "EXEC789012", "ER 17");
    expect(msg.getField(FIX::FIELD::Side), "1", "ER 54");
    expect(msg.getHeader().getField(FIX::FIELD::MsgType), "8", "ER 35");
    expect(msg.getField(FIX::FIELD::Price), "150.50", "ER 44");
    msg.setString(nos, true, &dd);
    expect(msg.getField(FIX::FIELD::ClOrdID), "CLORD001", "NOS 11");
    expect(msg.getField(FIX::FIELD::Symbol), "AAPL", "NOS 55");
    expect(msg.getField(FIX::FIELD::Side), "1", "NOS 54");
    expect(msg.getHeader().getField(FIX::FIELD::MsgType), "D", "NOS 35");

    std::string bad_ck = er;
    size_t p = bad_ck.rfind("10=");
    bad_ck[p + 5] = bad_ck[p + 5] == '9' ? '0' : bad_ck[p + 5] + 1;
    bool rejected = false;
    try { msg.setString(bad_ck, true, &dd); } catch (FIX::InvalidMessage& e) {
      rejected = true;
      std::fprintf(stderr, "check: wrong CheckSum rejected (%s)\n", e.what());
    }
    if (!rejected) bench::fail("setString(validate=true) accepted a wrong CheckSum");

    std::string bad_len = er;
    p = bad_len.find("9=");
    size_t e = bad_len.find(bench::SOH, p);
    int len = std::atoi(bad_len.c_str() + p + 2);
    bad_len.replace(p + 2, e - p - 2, std::to_string(len + 1));
    rejected = false;
    try { msg.setString(bad_len, true, &dd); } catch (FIX::InvalidMessage& ex) {
      rejected = true;
      std::fprintf(stderr, "check: wrong BodyLength rejected (%s)\n", ex.what());
    }
    if (!rejected) bench::fail("setString(validate=true) accepted a wrong BodyLength");
  }

  // ---- encode: pre-built field objects (values fixed strings), reused message and string.
  const FIX::FieldBase f8(FIX::FIELD::BeginString, "FIX.4.4");
  const FIX::FieldBase f35(FIX::FIELD::MsgType, "D");
  const FIX::FieldBase f49(FIX::FIELD::SenderCompID, "SENDER");
  const FIX::FieldBase f56(FIX::FIELD::TargetCompID, "TARGET");
  const FIX::FieldBase f34(FIX::FIELD::MsgSeqNum, "100");
  const FIX::FieldBase f52(FIX::FIELD::SendingTime, "20240115-10:30:00.000");
  const FIX::FieldBase f11(FIX::FIELD::ClOrdID, "CLORD001");
  const FIX::FieldBase f55(FIX::FIELD::Symbol, "AAPL");
  const FIX::FieldBase f54(FIX::FIELD::Side, "1");
  const FIX::FieldBase f60(FIX::FIELD::TransactTime, "20240115-10:30:00.000");
  const FIX::FieldBase f38(FIX::FIELD::OrderQty, "1000");
  const FIX::FieldBase f40(FIX::FIELD::OrdType, "2");
  const FIX::FieldBase f44(FIX::FIELD::Price, "150.00");
  const FIX::FieldBase f59(FIX::FIELD::TimeInForce, "0");
  FIX::Message out;   // reused encode message
  std::string wire;   // reused output buffer: toString(std::string&) writes into it
  wire.reserve(512);
  auto encode = [&]() {
    FIX::Header& h = out.getHeader();
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
    out.toString(wire);
    bench::sink(wire.size() + (unsigned char)wire[wire.size() - 2]);
  };
  encode();
  if (!bench::same_message(wire, nos, "nos_encode")) bench::fail("encoded NOS differs from the reference");

  auto er_parse = [&]() {
    msg.setString(er, true, &dd);
    bench::sink(msg.getHeader().getField(FIX::FIELD::BodyLength).size());
  };
  auto er_parse_read4 = [&]() {
    msg.setString(er, true, &dd);
    consume(msg.getField(FIX::FIELD::OrderID));
    consume(msg.getField(FIX::FIELD::ExecID));
    consume(msg.getField(FIX::FIELD::Side));
    consume(msg.getHeader().getField(FIX::FIELD::MsgType));
  };
  auto nos_parse_read4 = [&]() {
    msg.setString(nos, true, &dd);
    consume(msg.getField(FIX::FIELD::ClOrdID));
    consume(msg.getField(FIX::FIELD::Symbol));
    consume(msg.getField(FIX::FIELD::Side));
    consume(msg.getHeader().getField(FIX::FIELD::MsgType));
  };

  const std::string parse_settings =
      "FIX::Message::setString(str, validate=true, &dd) on a reused FIX::Message with the FIX44 "
      "DataDictionary (validate checks header order, BodyLength and CheckSum; no dd.validate "
      "of message content); ";
  const std::string common = "; build -O3 -march=native -std=c++14, libquickfix 1.15.1 (Debian), "
                             "steady_clock per-op timing";

  bench::run_cases(ENGINE, args, common, [&](const std::string& c, auto& time) -> bench::Timed {
    if (c == "er_parse_read4")
      return {time(er_parse_read4), parse_settings + "then getField(37,17,54) and getHeader().getField(35) as const std::string&"};
    if (c == "nos_parse_read4")
      return {time(nos_parse_read4), parse_settings + "then getField(11,55,54) and getHeader().getField(35) as const std::string&"};
    if (c == "er_parse") return {time(er_parse), parse_settings + "parse only"};
    if (c == "nos_encode")
      return {time(encode),
              "reused FIX::Message: setField of 6 header + 8 body pre-built FieldBase objects "
              "(overwrite), then toString(std::string&) into a reused string (computes "
              "BodyLength and CheckSum); QuickFIX orders fields by tag after 8/9/35, same "
              "field set and bytes count as the reference"};
    return {};
  });
  return 0;
}
