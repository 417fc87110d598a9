//! The [`Agent`] trait and the loops that run one: [`run_agent`] on the
//! calling thread, [`AgentRunner`] on a thread of its own.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::idle::IdleStrategy;

/// A unit of work run by a duty-cycle loop (Agrona's `Agent`): each cycle does
/// whatever is ready, without blocking (but see `may_wait`), and says how much
/// it did; the loop's [`IdleStrategy`] decides what happens after a cycle with
/// none.
///
/// See the [crate documentation](crate) for an example.
pub trait Agent {
    /// What stops the agent.
    type Error;

    /// One duty cycle; the work done (0: none, and the idle strategy runs).
    ///
    /// `may_wait` is how long the cycle may block waiting for work, if the
    /// agent has a way to wait for readiness (a reactor on `epoll`): zero
    /// unless the idle strategy is [`Block`](crate::Block). Other agents
    /// ignore it.
    ///
    /// # Errors
    ///
    /// An error ends the loop; [`on_close`](Self::on_close) still runs.
    fn do_work(&mut self, may_wait: Duration) -> Result<usize, Self::Error>;

    /// The agent's name: its thread's name under [`AgentRunner`].
    fn role_name(&self) -> &str;

    /// Called once before the first cycle.
    ///
    /// # Errors
    ///
    /// An error ends the run before any cycle (and `on_close` is not called).
    fn on_start(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Called once after the last cycle, on the agent's thread (a graceful
    /// stop: log out, flush).
    ///
    /// # Errors
    ///
    /// Returned from the run when the cycles themselves ended without one.
    fn on_close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Whether the agent has finished its work and the loop should end (a
    /// benchmark client that sent all its orders, say). Checked after every
    /// cycle.
    fn is_done(&self) -> bool {
        false
    }
}

/// Runs `agent` on the calling thread until `running` is cleared, the agent
/// is done, or a cycle fails; then closes it.
///
/// # Errors
///
/// The first error of [`Agent::on_start`], a cycle, or [`Agent::on_close`].
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use std::time::Duration;
/// use peregrine_agent::{run_agent, Agent, BusySpin};
///
/// struct FailsAtThree(u32);
/// impl Agent for FailsAtThree {
///     type Error = String;
///     fn do_work(&mut self, _: Duration) -> Result<usize, String> {
///         self.0 += 1;
///         if self.0 == 3 { Err("three".into()) } else { Ok(1) }
///     }
///     fn role_name(&self) -> &str { "fails" }
/// }
///
/// let running = AtomicBool::new(true);
/// let mut agent = FailsAtThree(0);
/// assert_eq!(run_agent(&mut agent, &mut BusySpin, &running), Err("three".to_string()));
/// ```
pub fn run_agent<A, I>(agent: &mut A, idle: &mut I, running: &AtomicBool) -> Result<(), A::Error>
where
    A: Agent + ?Sized,
    I: IdleStrategy + ?Sized,
{
    agent.on_start()?;
    let cycles = run_cycles(agent, idle, running);
    let closed = agent.on_close();
    cycles.and(closed)
}

fn run_cycles<A, I>(agent: &mut A, idle: &mut I, running: &AtomicBool) -> Result<(), A::Error>
where
    A: Agent + ?Sized,
    I: IdleStrategy + ?Sized,
{
    while running.load(Ordering::Relaxed) && !agent.is_done() {
        let work = agent.do_work(idle.max_wait())?;
        idle.idle(work);
    }
    Ok(())
}

/// An agent on a thread of its own (named by its [`role_name`](Agent::role_name)),
/// stopped and joined by [`close`](Self::close), or by dropping the runner.
///
/// ```
/// use std::time::Duration;
/// use peregrine_agent::{Agent, AgentRunner, Backoff};
///
/// struct Ticker(u64);
/// impl Agent for Ticker {
///     type Error = std::convert::Infallible;
///     fn do_work(&mut self, _: Duration) -> Result<usize, Self::Error> {
///         self.0 += 1;
///         Ok(0)
///     }
///     fn role_name(&self) -> &str { "ticker" }
/// }
///
/// let runner = AgentRunner::start(Ticker(0), Backoff::default())?;
/// std::thread::sleep(Duration::from_millis(10));
/// let (ticker, result) = runner.close();
/// assert!(result.is_ok() && ticker.0 > 0);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct AgentRunner<A: Agent> {
    running: Arc<AtomicBool>,
    thread: Option<JoinHandle<Ended<A>>>,
}

/// An agent given back by its runner, with how its run ended.
type Ended<A> = (A, Result<(), <A as Agent>::Error>);

impl<A> AgentRunner<A>
where
    A: Agent + Send + 'static,
    A::Error: Send + 'static,
{
    /// Starts `agent` on a new thread, idling with `idle`.
    ///
    /// # Errors
    ///
    /// The thread could not be spawned.
    pub fn start<I>(agent: A, idle: I) -> io::Result<Self>
    where
        I: IdleStrategy + Send + 'static,
    {
        Self::start_with_flag(agent, idle, Arc::new(AtomicBool::new(true)))
    }

    /// As [`start`](Self::start), stopped also when `running` is cleared
    /// elsewhere (by a signal handler, say).
    ///
    /// # Errors
    ///
    /// The thread could not be spawned.
    pub fn start_with_flag<I>(
        mut agent: A,
        mut idle: I,
        running: Arc<AtomicBool>,
    ) -> io::Result<Self>
    where
        I: IdleStrategy + Send + 'static,
    {
        let flag = running.clone();
        let thread = std::thread::Builder::new()
            .name(agent.role_name().to_string())
            .spawn(move || {
                let result = run_agent(&mut agent, &mut idle, &flag);
                (agent, result)
            })?;
        Ok(AgentRunner {
            running,
            thread: Some(thread),
        })
    }

    /// The flag that keeps the agent running (clear it to stop the agent).
    pub fn running(&self) -> &Arc<AtomicBool> {
        &self.running
    }

    /// Whether the agent's thread has ended (the agent is done, failed or was
    /// stopped).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().map_or(true, JoinHandle::is_finished)
    }

    /// Stops the agent (after its current cycle), waits for it to close, and
    /// gives it back with how its run ended.
    ///
    /// # Panics
    ///
    /// If the agent panicked, the panic carries on in the caller.
    pub fn close(mut self) -> (A, Result<(), A::Error>) {
        self.running.store(false, Ordering::Relaxed);
        self.wait()
    }

    /// Waits for the agent to end by itself ([`Agent::is_done`], an error, or
    /// its flag cleared elsewhere), and gives it back with how its run ended.
    ///
    /// # Panics
    ///
    /// If the agent panicked, the panic carries on in the caller.
    pub fn join(mut self) -> (A, Result<(), A::Error>) {
        self.wait()
    }

    fn wait(&mut self) -> Ended<A> {
        let thread = self
            .thread
            .take()
            .expect("joined once: close and join take self");
        match thread.join() {
            Ok(ended) => ended,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl<A: Agent> Drop for AgentRunner<A> {
    /// Stops the agent and waits for its thread (a panic in it is dropped).
    fn drop(&mut self) {
        self.running.store(false, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Block, BusySpin, BLOCK_MAX_WAIT};

    /// Records what the loop did to it.
    #[derive(Default)]
    struct Probe {
        started: bool,
        closed: bool,
        cycles: u32,
        waits: Vec<Duration>,
        stop_after: Option<u32>,
        fail_at: Option<u32>,
    }

    impl Agent for Probe {
        type Error = u32;
        fn do_work(&mut self, may_wait: Duration) -> Result<usize, u32> {
            self.cycles += 1;
            self.waits.push(may_wait);
            if self.fail_at == Some(self.cycles) {
                return Err(self.cycles);
            }
            Ok(1)
        }
        fn role_name(&self) -> &str {
            "probe"
        }
        fn on_start(&mut self) -> Result<(), u32> {
            self.started = true;
            Ok(())
        }
        fn on_close(&mut self) -> Result<(), u32> {
            self.closed = true;
            Ok(())
        }
        fn is_done(&self) -> bool {
            Some(self.cycles) == self.stop_after
        }
    }

    #[test]
    fn a_done_agent_is_started_cycled_and_closed() {
        let mut probe = Probe {
            stop_after: Some(5),
            ..Probe::default()
        };
        run_agent(&mut probe, &mut BusySpin, &AtomicBool::new(true)).unwrap();
        assert!(probe.started && probe.closed);
        assert_eq!(probe.cycles, 5);
        assert!(probe.waits.iter().all(|w| w.is_zero()));
    }

    #[test]
    fn block_lets_the_agent_wait() {
        let mut probe = Probe {
            stop_after: Some(2),
            ..Probe::default()
        };
        run_agent(&mut probe, &mut Block, &AtomicBool::new(true)).unwrap();
        assert_eq!(probe.waits, vec![BLOCK_MAX_WAIT; 2]);
    }

    #[test]
    fn an_error_ends_the_loop_and_still_closes() {
        let mut probe = Probe {
            fail_at: Some(3),
            ..Probe::default()
        };
        assert_eq!(
            run_agent(&mut probe, &mut BusySpin, &AtomicBool::new(true)),
            Err(3)
        );
        assert!(probe.closed);
    }

    #[test]
    fn a_cleared_flag_stops_before_any_cycle() {
        let mut probe = Probe::default();
        run_agent(&mut probe, &mut BusySpin, &AtomicBool::new(false)).unwrap();
        assert_eq!(probe.cycles, 0);
        assert!(probe.started && probe.closed);
    }

    #[test]
    fn the_runner_names_its_thread_and_closes() {
        struct Named(Option<String>);
        impl Agent for Named {
            type Error = ();
            fn do_work(&mut self, _: Duration) -> Result<usize, ()> {
                self.0 = std::thread::current().name().map(String::from);
                Ok(0)
            }
            fn role_name(&self) -> &str {
                "named-agent"
            }
        }
        let runner = AgentRunner::start(Named(None), crate::Backoff::default()).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert!(!runner.is_finished());
        let (named, result) = runner.close();
        assert_eq!(result, Ok(()));
        assert_eq!(named.0.as_deref(), Some("named-agent"));
    }
}
