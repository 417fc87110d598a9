package peregrine.peers;

import quickfix.FieldNotFound;
import quickfix.Message;
import quickfix.StringField;
import quickfix.fix44.ExecutionReport;

/**
 * The ExecutionReport (ExecType/OrdStatus New) a venue answers each NewOrderSingle with, reused
 * for every order ({@link RoundTrip}'s and {@link ManySessions}' venues). Filling it allocates
 * nothing: OrderID/ExecID come from tables built at construction (on the fly past them), the
 * copied fields are reused StringFields pointing at the Strings QuickFIX/J parsed, the constant
 * fields are set once, and FieldMap.setField keeps each field object (Session.send has serialized
 * the report before it returns, so the next order may reuse them).
 */
final class OrderAck {
  private final ExecutionReport er = new ExecutionReport();
  private final StringField orderId = new StringField(37);
  private final StringField execId = new StringField(17);
  private final StringField clOrdId = new StringField(11);
  private final StringField symbol = new StringField(55);
  private final StringField side = new StringField(54);
  private final StringField leavesQty = new StringField(151);
  private final StringField clientId = new StringField(109);
  private final StringField price = new StringField(44);
  private final StringField orderQty = new StringField(38);
  private final StringField transactTime = new StringField(60);
  private final String[] orderIds;
  private final String[] execIds;

  /** OrderIDs O1.. and ExecIDs E1.. built now for the first {@code prebuiltIds} orders. */
  OrderAck(int prebuiltIds) {
    orderIds = ScaleSupport.idTable("O", prebuiltIds);
    execIds = ScaleSupport.idTable("E", prebuiltIds);
    er.setString(150, "0"); // ExecType New
    er.setString(39, "0"); // OrdStatus New
    er.setString(14, "0"); // CumQty
    er.setString(6, "0"); // AvgPx
  }

  /** The report answering {@code order}, the venue's order number {@code n} (from 0). */
  ExecutionReport answer(Message order, long n) throws FieldNotFound {
    boolean prebuilt = n < orderIds.length;
    orderId.setValue(prebuilt ? orderIds[(int) n] : "O" + (n + 1));
    execId.setValue(prebuilt ? execIds[(int) n] : "E" + (n + 1));
    clOrdId.setValue(order.getString(11));
    symbol.setValue(order.getString(55));
    side.setValue(order.getString(54));
    String qty = order.getString(38);
    orderQty.setValue(qty);
    leavesQty.setValue(qty); // LeavesQty = OrderQty
    clientId.setValue(order.getString(109));
    price.setValue(order.getString(44));
    transactTime.setValue(order.getString(60));
    er.setField(orderId);
    er.setField(execId);
    er.setField(clOrdId);
    er.setField(symbol);
    er.setField(side);
    er.setField(orderQty);
    er.setField(leavesQty);
    er.setField(clientId);
    er.setField(price);
    er.setField(transactTime);
    return er;
  }
}
