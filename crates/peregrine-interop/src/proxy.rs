//! A TCP proxy that cuts the connection at chosen points: an initiator connects to it,
//! it connects to the acceptor and copies bytes both ways, and when the bytes it has
//! copied (both ways, over every connection) reach the next cut, it writes up to that
//! byte exactly and closes both sockets: a disconnect anywhere, mid-message included.
//!
//! Bounds: one thread per direction per connection, a 16 KiB buffer each; connections
//! live until a cut or a close.
//!
//! ```
//! use std::io::{Read, Write};
//! use std::net::{TcpListener, TcpStream};
//! let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
//! let proxy = peregrine_interop::proxy::Proxy::start(upstream.local_addr().unwrap(), vec![5]).unwrap();
//! let mut client = TcpStream::connect(proxy.addr()).unwrap();
//! let (mut server, _) = upstream.accept().unwrap();
//! client.write_all(b"8=FIX.4.4").unwrap();
//! let mut got = Vec::new();
//! server.read_to_end(&mut got).unwrap(); // cut after 5 bytes
//! assert_eq!(got, b"8=FIX");
//! assert_eq!(proxy.cuts_done(), 1);
//! ```

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

/// Bytes copied and the cuts to make.
#[derive(Debug, Default)]
struct Tally {
    copied: u64,
    cuts: Vec<u64>,
    next: usize,
}

/// The running proxy (its threads stop when it is dropped and its connections close).
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
    tally: Arc<Mutex<Tally>>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on 127.0.0.1 (a free port) and forwards to `upstream`; `cuts` are byte
    /// counts, in any order.
    ///
    /// # Errors
    ///
    /// The listening socket cannot be opened.
    pub fn start(upstream: SocketAddr, mut cuts: Vec<u64>) -> io::Result<Proxy> {
        cuts.sort_unstable();
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let tally = Arc::new(Mutex::new(Tally {
            cuts,
            ..Tally::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (t, s) = (tally.clone(), stop.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(upstream) else {
                    // The acceptor is down (restarting): the initiator retries.
                    continue;
                };
                let _ = (client.set_nodelay(true), server.set_nodelay(true));
                for (from, to) in [(&client, &server), (&server, &client)] {
                    let (Ok(from), Ok(to)) = (from.try_clone(), to.try_clone()) else {
                        continue;
                    };
                    let pair = (client.try_clone(), server.try_clone());
                    let t = t.clone();
                    thread::spawn(move || {
                        if let (Ok(a), Ok(b)) = pair {
                            copy(from, to, &t, [a, b]);
                        }
                    });
                }
            }
        });
        Ok(Proxy { addr, tally, stop })
    }

    /// Where initiators connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Cuts made so far.
    pub fn cuts_done(&self) -> usize {
        self.tally.lock().unwrap_or_else(|p| p.into_inner()).next
    }

    /// Bytes copied so far, both ways.
    pub fn copied(&self) -> u64 {
        self.tally.lock().unwrap_or_else(|p| p.into_inner()).copied
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// Copies `from` to `to` until either closes or a cut closes `both`.
fn copy(mut from: TcpStream, mut to: TcpStream, tally: &Mutex<Tally>, both: [TcpStream; 2]) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // Decide under the lock how much of this chunk goes before a cut; writing
        // under it too keeps the count exact across both directions.
        let mut t = tally.lock().unwrap_or_else(|p| p.into_inner());
        let take = match t.cuts.get(t.next) {
            Some(&cut) if t.copied + n as u64 >= cut => (cut.saturating_sub(t.copied)) as usize,
            _ => n,
        };
        if to.write_all(&buf[..take]).is_err() {
            break;
        }
        t.copied += take as u64;
        if take < n || t.cuts.get(t.next) == Some(&t.copied) {
            t.next += 1;
            drop(t);
            for s in &both {
                let _ = s.shutdown(Shutdown::Both);
            }
            return;
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}
