package peregrine.peers;

import quickfix.SessionID;
import quickfix.SessionSettings;

/**
 * The settings every one-session peer ({@link RoundTrip}, {@link Stream}) gives its session: an
 * acceptor or initiator on 127.0.0.1, never outside its session time, a 30 s heartbeat, sequence
 * numbers reset at logon, TCP_NODELAY, and an initiator that reconnects after 1 s. Each program
 * adds its store, dictionary and write settings.
 */
final class OneSession {
  private OneSession() {}

  static SessionSettings socketSettings(SessionID id, boolean acceptor, int port) {
    SessionSettings s = new SessionSettings();
    s.setString(id, "ConnectionType", acceptor ? "acceptor" : "initiator");
    s.setString(id, "NonStopSession", "Y");
    s.setString(id, "HeartBtInt", "30");
    s.setString(id, "ResetOnLogon", "Y");
    s.setString(id, "SocketTcpNoDelay", "Y");
    if (acceptor) {
      s.setString(id, "SocketAcceptAddress", "127.0.0.1");
      s.setLong(id, "SocketAcceptPort", port);
    } else {
      s.setString(id, "SocketConnectHost", "127.0.0.1");
      s.setLong(id, "SocketConnectPort", port);
      s.setLong(id, "ReconnectInterval", 1);
    }
    return s;
  }
}
