//! When a session is open: its window, logon window, time zone and daily reset.

use super::{flag, text, Key, CPP, GO, QF, QFJ, QFJ_GO};

const TIME: &str = "HH:MM:SS";
const DAY: &str = "a day of the week";

pub(super) const KEYS: &[Key] = &[
    text(
        "StartTime",
        QF,
        TIME,
        "always on",
        "daily window `HH:MM:SS` in `TimeZone`, with `EndTime`; outside it an acceptor refuses connections, an initiator does not connect, a logged-on session logs out at the end; a session whose store predates the current window starts at sequence number 1 (StartTime = EndTime: open around the clock, a new period, with Logout and reset, at that time each day). Open from StartTime up to EndTime, EndTime itself outside (QuickFIX/J counts the closing millisecond in, QuickFIX/Go the closing second)",
    ),
    text(
        "EndTime",
        QF,
        TIME,
        "always on",
        "the end of the daily window of `StartTime` (both or neither)",
    ),
    flag(
        "NonStopSession",
        QFJ,
        false,
        "`Y`: a session without a window, which is what leaving out StartTime/EndTime gives; with StartTime, EndTime, StartDay, EndDay, Weekdays or the logon keys it is an error (`ResetSeqTime` may go with it)",
    ),
    text(
        "StartDay",
        QF,
        DAY,
        "none",
        "with StartTime/EndTime and `EndDay`: a weekly window, from StartDay StartTime to EndDay EndTime in `TimeZone` (`sun`…`sat` or full names; may wrap the weekend)",
    ),
    text(
        "EndDay",
        QF,
        DAY,
        "none",
        "the last day of the weekly window of `StartDay` (both or neither)",
    ),
    text(
        "Weekdays",
        QFJ_GO,
        "days, comma-separated",
        "every day",
        "`Mon,Tue,Wed,Thu,Fri` (names or prefixes of two letters or more): the daily window opens only on these days; a window crossing midnight belongs to the day it opens on (Friday 22:00 to Saturday 06:00 with `Weekdays=Fri`); with StartDay/EndDay it is an error, as in both",
    ),
    text(
        "TimeZone",
        QF,
        "an IANA zone name, or Local",
        "UTC",
        "the zone of StartTime, EndTime, LogonTime, LogoutTime and ResetSeqTime: an IANA name (`America/New_York`, `Europe/London`, `Asia/Tokyo`, `UTC`), from the tz database built into the binary (no system files read); `Local`: the host's zone (QuickFIX/Go). Each opening and closing is computed from the local date, so a window keeps its local hours across a daylight-saving change (that day's window is an hour shorter or longer); a local time the clocks skip (02:30 on 2026-03-08 in New York) comes later by the gap (03:30 EDT), one that happens twice (01:30 on 2026-11-01) is its first occurrence (EDT), as java.time and jiff resolve them (QuickFIX/J's `Calendar` takes the second). An unknown name stops start-up (`TimeZone: \"Mars/Olympus\" is not a time zone of the IANA database …`). QuickFIX/J's zone after a time (`StartTime=09:00:00 US/Eastern`) is not read: the value is refused as not `HH:MM:SS`; set `TimeZone`. SendingTime stays UTC",
    ),
    flag(
        "UseLocalTime",
        CPP,
        false,
        "`Y`: the times are in the host's zone (read once at start-up); with `TimeZone` it is an error",
    ),
    text(
        "LogonTime",
        CPP,
        TIME,
        "StartTime",
        "with `LogoutTime`, a logon window inside the session window, in `TimeZone`: outside it an initiator does not connect, an acceptor refuses, a logged-on session logs out; sequence numbers go on until the session window closes. Both or neither; outside StartTime–EndTime is an error (as in QuickFIX C++); for acceptors and initiators alike",
    ),
    text(
        "LogoutTime",
        CPP,
        TIME,
        "EndTime",
        "the end of the logon window of `LogonTime`",
    ),
    text(
        "LogonDay",
        CPP,
        DAY,
        "StartDay",
        "with `LogoutDay`, the logon window's days, for a weekly session (needs StartDay/EndDay and LogonTime/LogoutTime)",
    ),
    text(
        "LogoutDay",
        CPP,
        DAY,
        "EndDay",
        "the last day of the logon window of `LogonDay`",
    ),
    text(
        "ResetSeqTime",
        GO,
        TIME,
        "none",
        "`HH:MM:SS` in `TimeZone`: each day at this time a logged-on session resets its sequence numbers without disconnecting: it sends a Logon with ResetSeqNumFlag(141)=Y and MsgSeqNum 1 (as QuickFIX/Go), the counterparty resets and answers with its own, and both go on from 2. A session not logged on then lets the time pass (as QuickFIX/Go). Messages the counterparty sent before it saw the reset Logon arrive numbered above 1 and are asked for again; choose a quiet time",
    ),
];
