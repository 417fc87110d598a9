//! An order router: client sessions made from an acceptor template (an allow
//! list of CompIDs) on one side, the exchange over TLS on the other, their
//! day New York's (router.cfg). Orders and cancels go to the exchange, reports and
//! cancel rejects come back, each forwarded from inside the callback that
//! received it ([`Outbox::send_to`]). With `EngineJournal=Y` every forward
//! commits with the message that caused it: a `kill -9` at any instant loses
//! nothing and sends nothing twice as new.
//!
//! ```text
//! cargo run -p peregrine-examples --example router -- examples/router.cfg
//! ```
//!
//! The exchange's ClOrdIDs are the client's with its CompID before them
//! (`C1:ORD-7`), so the router keeps no map that a crash could lose.
//!
//! While the exchange is not logged on, a new order is rejected at once (the
//! client may send it again), but a cancel is kept and sent when the
//! exchange logs on again (the engine's queue for a session logged out,
//! `QueueWhileLoggedOut=Y`): the order may still be live there, so the
//! cancel must reach it, and the client hears when the exchange answers.
//! The QuickFIX/J router (peers/quickfixj) does the same.
//!
//! Routing an order allocates nothing once warm. `peregrine bench gateway`
//! (BENCHMARKS.md §8) compiles this file in and runs `Router::default()`
//! against the same router on QuickFIX/J: keep `Router` public with `Default`.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use peregrine_engine::codec::{MessageEncoder, MessageView};
use peregrine_engine::session::{AppReject, Application, Outbox, SessionId};
use peregrine_engine::EngineBuilder;

/// The header and trailer: the session writes its own.
const SESSION_FIELDS: [u32; 12] = [8, 9, 10, 34, 35, 43, 49, 52, 56, 97, 122, 369];

/// Every session's application (one per session, all on the engine's thread).
pub struct Router {
    /// The exchange's session.
    pub exchange: SessionId,
    /// A report's client, an order's ClOrdID and OrigClOrdID for the exchange: reused,
    /// so that routing allocates nothing once warm.
    client: SessionId,
    ids: [Vec<u8>; 2],
}

impl Default for Router {
    fn default() -> Router {
        let exchange = SessionId::new("FIX.4.4", "GW", "EXCH");
        let client = exchange.clone();
        Router {
            exchange,
            client,
            ids: Default::default(),
        }
    }
}

/// Copies `msg`'s body but the session's fields and `skip`.
fn copy(msg: &MessageView<'_>, m: &mut MessageEncoder<'_>, skip: &[u32]) {
    for f in msg.fields() {
        if !SESSION_FIELDS.contains(&f.tag) && !skip.contains(&f.tag) {
            m.str(f.tag, f.value);
        }
    }
}

/// Why an order is refused before it reaches the exchange.
fn check(order: &MessageView<'_>) -> Option<&'static str> {
    let qty = order
        .get(38)
        .and_then(|v| std::str::from_utf8(v).ok()?.parse::<f64>().ok());
    match qty {
        _ if order.get(55).is_none() => Some("no Symbol"),
        Some(q) if q > 0.0 && q <= 1_000_000.0 => None,
        _ => Some("OrderQty missing or out of range"),
    }
}

/// An ExecutionReport OrdStatus=Rejected for a client's order.
fn reject(order: &MessageView<'_>, why: &str, out: &mut Outbox<'_>) -> Result<(), AppReject> {
    let id = order.get(11).unwrap_or(b"?");
    out.send(b"8", |m| {
        m.str(37, b"NONE")
            .str(17, id)
            .str(150, b"8")
            .str(39, b"8")
            .str(58, why.as_bytes());
        copy(order, m, &[37, 17, 150, 39, 58, 14, 151, 6]);
        m.str(151, b"0").str(14, b"0").str(6, b"0");
    })
    .map(|_| ())
    .map_err(|e| AppReject::business(0, e.to_string()))
}

impl Application for Router {
    fn from_app(
        &mut self,
        msg: &MessageView<'_>,
        id: &SessionId,
        out: &mut Outbox<'_>,
    ) -> Result<(), AppReject> {
        let failed =
            |e: peregrine_engine::session::SendError| AppReject::business(0, e.to_string());
        if *id == self.exchange {
            if !matches!(msg.msg_type(), b"8" | b"9") {
                return Ok(()); // a reject is not answered (no reject loops)
            }
            // "C1:ORD-7" back to C1 as "ORD-7" (OrigClOrdID likewise).
            let ours = |tag| {
                msg.get(tag)
                    .and_then(|v| v.iter().position(|&b| b == b':').map(|i| v.split_at(i)))
            };
            let (client, cl_ord_id) = ours(11).ok_or(AppReject::business(0, "not our ClOrdID"))?;
            self.client.target_comp_id.clear();
            self.client.target_comp_id += &String::from_utf8_lossy(client);
            return out
                .send_to(&self.client, msg.msg_type(), |m| {
                    m.str(11, &cl_ord_id[1..]);
                    if let Some((_, orig)) = ours(41) {
                        m.str(41, &orig[1..]);
                    }
                    copy(msg, m, &[11, 41]);
                })
                .map(|_| ())
                .map_err(failed);
        }
        let [cl_ord_id, orig] = &mut self.ids;
        for (mapped, tag) in [(&mut *cl_ord_id, 11), (&mut *orig, 41)] {
            mapped.clear();
            for part in [
                id.target_comp_id.as_bytes(),
                b":",
                msg.get(tag).unwrap_or(b""),
            ] {
                mapped.extend_from_slice(part);
            }
        }
        match msg.msg_type() {
            b"D" => {
                if let Some(why) = check(msg) {
                    return reject(msg, why, out);
                }
                if !out.peer(&self.exchange).is_some_and(|p| p.logged_on) {
                    return reject(msg, "exchange not logged on", out);
                }
            }
            b"F" => {}
            _ => return Err(AppReject::UnsupportedMessageType),
        }
        out.send_to(&self.exchange, msg.msg_type(), |m| {
            m.str(11, cl_ord_id);
            if msg.get(41).is_some() {
                m.str(41, orig);
            }
            copy(msg, m, &[11, 41]);
        })
        .map(|_| ())
        .map_err(failed)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cfg = std::env::args()
        .nth(1)
        .unwrap_or("examples/router.cfg".into());
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let router = EngineBuilder::load(&cfg)?
        .stop_flag(stop.clone())
        .start(|_session| Router::default())?;
    println!("router listening on {:?}", router.listener_addrs());
    // Until SIGINT or SIGTERM: then every session logs out.
    router.wait()?;
    Ok(())
}
