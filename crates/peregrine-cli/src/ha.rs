//! The high-availability keys (`HaNodeName`, `HaGroup`, docs/standby.md) of
//! `acceptor` and `initiator`: a leadership campaign on etcd through
//! `peregrine-ha` in a build with the `ha` feature; in a build without it
//! (etcd's gRPC client needs protoc to build), a `.cfg` that sets them is
//! refused at start-up, naming the feature, rather than run without fencing.

use std::sync::Arc;

use peregrine_engine::config::HaSettings;
use peregrine_engine::{EngineBuilder, EngineOptions, WriteGate};

use crate::error::Error;

#[cfg(feature = "ha")]
pub use peregrine_ha::Leadership;

/// What a build without the `ha` feature holds: no leadership is ever made.
#[cfg(not(feature = "ha"))]
#[derive(Debug)]
pub enum Leadership {}

#[cfg(not(feature = "ha"))]
impl Leadership {
    /// Never called: there is no value of this type.
    pub fn try_event(&self) -> Option<std::convert::Infallible> {
        match *self {}
    }
}

/// The leadership the `Ha` keys ask for (one group for the whole engine), and
/// the builder with the leadership's write gate.
pub fn campaign(builder: EngineBuilder) -> Result<(EngineBuilder, Option<Leadership>), Error> {
    let mut groups = builder
        .settings()
        .sessions
        .iter()
        .filter_map(|s| s.ha.as_ref());
    let Some(ha) = groups.next() else {
        return Ok((builder, None));
    };
    if let Some(other) = groups.find(|o| o.group != ha.group) {
        return Err(Error::Usage(format!(
            "the sessions name two HaGroups ({} and {}): one engine holds one group for now",
            ha.group, other.group
        )));
    }
    let leadership = start(ha)?;
    let builder = builder.options(EngineOptions {
        write_gate: Some(gate(&leadership)),
        ..EngineOptions::default()
    });
    Ok((builder, Some(leadership)))
}

/// Resigns the leadership (etcd's lease revoked), if any.
#[cfg(feature = "ha")]
pub fn resign(leadership: Option<Leadership>) {
    drop(leadership);
}

/// Nothing to resign in a build without the `ha` feature.
#[cfg(not(feature = "ha"))]
pub fn resign(leadership: Option<Leadership>) {
    if let Some(l) = leadership {
        match l {}
    }
}

#[cfg(feature = "ha")]
fn gate(leadership: &Leadership) -> Arc<dyn WriteGate> {
    Arc::new(leadership.gate())
}

#[cfg(not(feature = "ha"))]
fn gate(leadership: &Leadership) -> Arc<dyn WriteGate> {
    match *leadership {}
}

#[cfg(feature = "ha")]
fn start(ha: &HaSettings) -> Result<Leadership, Error> {
    let leadership = Leadership::start(peregrine_ha::HaConfig::from_settings(ha))
        .map_err(|e| Error::Usage(format!("high availability: {e}")))?;
    tracing::info!(
        "high availability: node {} campaigning for group {} on etcd; sessions held until it leads",
        ha.node_name,
        ha.group
    );
    Ok(leadership)
}

#[cfg(not(feature = "ha"))]
fn start(ha: &HaSettings) -> Result<Leadership, Error> {
    Err(Error::Usage(format!(
        "HaNodeName={} asks for high availability, which this build of peregrine leaves \
         out: build it with `--features ha` (needs protoc)",
        ha.node_name
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn builder(ha: &str) -> EngineBuilder {
        let cfg = format!(
            "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=0\nUseDataDictionary=N\n\
             [SESSION]\nBeginString=FIX.4.4\nSenderCompID=GW\nTargetCompID=C1\n{ha}"
        );
        EngineBuilder::parse(&cfg, "ha.cfg").expect("settings parse")
    }

    #[test]
    fn no_ha_keys_no_campaign() {
        let (_, leadership) = campaign(builder("")).expect("no Ha keys: nothing to refuse");
        assert!(leadership.is_none());
    }

    /// A build without the feature refuses the keys, naming the feature, rather than run
    /// unfenced.
    #[cfg(not(feature = "ha"))]
    #[test]
    fn ha_keys_without_the_feature_are_refused_by_name() {
        let keys = "HaNodeName=gw-a\nHaPeers=gw-b\nHaEtcdEndpoints=127.0.0.1:1\n";
        let Err(Error::Usage(text)) = campaign(builder(keys)) else {
            panic!("Ha keys accepted in a build without the ha feature");
        };
        assert!(text.contains("HaNodeName=gw-a"), "{text}");
        assert!(text.contains("--features ha"), "{text}");
    }
}
