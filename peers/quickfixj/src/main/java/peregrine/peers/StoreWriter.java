// Writes a QuickFIX/J store through QuickFIX/J's own store factory, for the store-import
// test (crates/peregrine-cli/tests/store_import.rs): session FIX.4.4 SENDER->TARGET in DIR,
// COUNT NewOrderSingles stored under 1..COUNT (built by quickfix.Message), the next sender
// number COUNT+1, the next target number NEXT_TARGET. KIND is file (FileStoreFactory) or
// cached (CachedFileStoreFactory).
//
//   peers/quickfixj/run.sh StoreWriter DIR SENDER TARGET COUNT NEXT_TARGET file|cached
package peregrine.peers;

import java.io.Closeable;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import quickfix.CachedFileStoreFactory;
import quickfix.FileStoreFactory;
import quickfix.Message;
import quickfix.MessageStore;
import quickfix.MessageStoreFactory;
import quickfix.SessionID;
import quickfix.SessionSettings;
import quickfix.field.BeginString;
import quickfix.field.ClOrdID;
import quickfix.field.MsgSeqNum;
import quickfix.field.MsgType;
import quickfix.field.OrdType;
import quickfix.field.OrderQty;
import quickfix.field.SenderCompID;
import quickfix.field.SendingTime;
import quickfix.field.Side;
import quickfix.field.Symbol;
import quickfix.field.TargetCompID;
import quickfix.field.TransactTime;

public class StoreWriter {
    public static void main(String[] args) throws Exception {
        if (args.length != 6 || !(args[5].equals("file") || args[5].equals("cached"))) {
            System.err.println("usage: StoreWriter DIR SENDER TARGET COUNT NEXT_TARGET file|cached");
            System.exit(2);
        }
        SessionID id = new SessionID("FIX.4.4", args[1], args[2]);
        SessionSettings settings = new SessionSettings();
        settings.setString(id, "FileStorePath", args[0]);
        MessageStoreFactory factory = args[5].equals("file")
                ? new FileStoreFactory(settings)
                : new CachedFileStoreFactory(settings);
        MessageStore store = factory.create(id);
        int count = Integer.parseInt(args[3]);
        for (int n = 1; n <= count; n++) {
            Message m = new Message();
            m.getHeader().setString(BeginString.FIELD, "FIX.4.4");
            m.getHeader().setString(MsgType.FIELD, MsgType.ORDER_SINGLE);
            m.getHeader().setString(SenderCompID.FIELD, args[1]);
            m.getHeader().setString(TargetCompID.FIELD, args[2]);
            m.getHeader().setInt(MsgSeqNum.FIELD, n);
            m.getHeader().setUtcTimeStamp(SendingTime.FIELD, LocalDateTime.now(ZoneOffset.UTC));
            m.setString(ClOrdID.FIELD, "Q" + n);
            m.setString(Symbol.FIELD, "PGRN");
            m.setChar(Side.FIELD, Side.BUY);
            m.setUtcTimeStamp(TransactTime.FIELD, LocalDateTime.now(ZoneOffset.UTC));
            m.setDecimal(OrderQty.FIELD, java.math.BigDecimal.ONE);
            m.setChar(OrdType.FIELD, OrdType.MARKET);
            store.set(n, m.toString());
            store.incrNextSenderMsgSeqNum();
        }
        store.setNextTargetMsgSeqNum(Integer.parseInt(args[4]));
        System.out.println("stored " + count + ", next sender " + store.getNextSenderMsgSeqNum()
                + ", next target " + store.getNextTargetMsgSeqNum());
        if (store instanceof Closeable) {
            ((Closeable) store).close();
        }
    }
}
