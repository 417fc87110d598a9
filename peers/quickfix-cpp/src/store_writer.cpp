// store_writer: writes a QuickFIX C++ FileStore through QuickFIX's own FileStoreFactory,
// for the store-import test (crates/peregrine-cli/tests/store_import.rs): session
// FIX.4.4 SENDER->TARGET in DIR, COUNT NewOrderSingles stored under 1..COUNT (built by
// FIX::Message), the next sender number COUNT+1, the next target number NEXT_TARGET.
//
//   build/store_writer DIR SENDER TARGET COUNT NEXT_TARGET
#include <cstdlib>
#include <iostream>
#include <string>

#include <quickfix/FileStore.h>
#include <quickfix/Message.h>
#include <quickfix/SessionID.h>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: store_writer DIR SENDER TARGET COUNT NEXT_TARGET\n";
    return 2;
  }
  const std::string dir = argv[1], sender = argv[2], target = argv[3];
  const int count = std::atoi(argv[4]), next_target = std::atoi(argv[5]);
  try {
    FIX::FileStoreFactory factory(dir);
    FIX::SessionID id("FIX.4.4", sender, target);
    FIX::MessageStore* store = factory.create(id);
    for (int n = 1; n <= count; ++n) {
      FIX::Message m;
      FIX::Header& h = m.getHeader();
      h.setField(FIX::BeginString("FIX.4.4"));
      h.setField(FIX::MsgType("D"));
      h.setField(FIX::SenderCompID(sender));
      h.setField(FIX::TargetCompID(target));
      h.setField(FIX::MsgSeqNum(n));
      h.setField(FIX::SendingTime(FIX::UtcTimeStamp(), 3));
      m.setField(FIX::ClOrdID("C" + std::to_string(n)));
      m.setField(FIX::Symbol("PGRN"));
      m.setField(FIX::Side(FIX::Side_BUY));
      m.setField(FIX::OrderQty(1));
      m.setField(FIX::OrdType(FIX::OrdType_MARKET));
      m.setField(FIX::TransactTime(FIX::UtcTimeStamp(), 3));
      store->set(n, m.toString());
      store->incrNextSenderMsgSeqNum();
    }
    store->setNextTargetMsgSeqNum(next_target);
    std::cout << "stored " << count << ", next sender " << store->getNextSenderMsgSeqNum()
              << ", next target " << store->getNextTargetMsgSeqNum() << "\n";
    factory.destroy(store);
  } catch (std::exception& e) {
    std::cerr << "store_writer: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
