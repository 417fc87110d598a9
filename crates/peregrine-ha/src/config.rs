//! What a node needs to campaign: its name, its peers, etcd's endpoints, the group
//! and the lease's TTL (the `.cfg` keys `HaNodeName`, `HaPeers`, `HaEtcdEndpoints`,
//! `HaGroup`, `HaLeaseTTL`).

use std::fmt;
use std::time::Duration;

/// The longest `HaLeaseTTL` accepted: an hour (a standby would wait that long).
pub const MAX_LEASE_TTL: Duration = Duration::from_secs(3600);
/// The TTL when none is given: etcd's own minimum with its default timings (a
/// 100 ms heartbeat and a 1 s election timeout give 1.5 s, rounded up to 2 s).
pub const DEFAULT_LEASE_TTL: Duration = Duration::from_secs(2);
/// Where the leader keys live: `<prefix>/<group>/leader`.
pub const DEFAULT_KEY_PREFIX: &str = "/peregrine/ha";

/// One node's leadership settings for one session group.
///
/// ```
/// use peregrine_ha::HaConfig;
/// use std::time::Duration;
/// let mut config = HaConfig::new("node-a", "orders", ["127.0.0.1:2379"]);
/// config.peers = vec!["node-b".into()];
/// config.lease_ttl = Duration::from_secs(2);
/// config.validate()?;
/// assert_eq!(config.leader_key(), "/peregrine/ha/orders/leader");
/// assert_eq!(config.endpoint_urls(), ["http://127.0.0.1:2379"]);
/// // Not leader any more 200 ms before the lease can expire on etcd.
/// assert_eq!(config.margin_for(Duration::from_secs(2)), Duration::from_millis(200));
/// # Ok::<(), peregrine_ha::HaConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaConfig {
    /// This node's name (`HaNodeName`): the leader key's value while it leads.
    pub node: String,
    /// The other nodes of the group (`HaPeers`): names only, for now (replication
    /// will address them).
    pub peers: Vec<String>,
    /// etcd's client URLs (`HaEtcdEndpoints`): `host:port` or `http://host:port`.
    pub endpoints: Vec<String>,
    /// The session group this leadership is for (`HaGroup`): one leader key each.
    pub group: String,
    /// The lease's TTL (`HaLeaseTTL`, whole seconds, as etcd counts them). etcd may
    /// grant more (its minimum); the granted TTL is the one used.
    pub lease_ttl: Duration,
    /// How long before the lease could expire on etcd this node stops counting itself
    /// leader; `None`: a tenth of the TTL, at least 100 ms ([`HaConfig::margin_for`]).
    pub margin: Option<Duration>,
    /// The leader key's prefix ([`DEFAULT_KEY_PREFIX`]).
    pub key_prefix: String,
}

impl HaConfig {
    /// Settings with the default TTL, margin and prefix, and no peers.
    pub fn new<E: Into<String>>(
        node: impl Into<String>,
        group: impl Into<String>,
        endpoints: impl IntoIterator<Item = E>,
    ) -> Self {
        HaConfig {
            node: node.into(),
            peers: Vec::new(),
            endpoints: endpoints.into_iter().map(Into::into).collect(),
            group: group.into(),
            lease_ttl: DEFAULT_LEASE_TTL,
            margin: None,
            key_prefix: DEFAULT_KEY_PREFIX.to_string(),
        }
    }

    /// The settings of a `.cfg` (`HaNodeName`, `HaPeers`, `HaEtcdEndpoints`,
    /// `HaLeaseTTL`, `HaGroup`), as the engine read and checked them.
    ///
    /// ```
    /// use peregrine_engine::config::Settings;
    /// use peregrine_ha::HaConfig;
    /// let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\n\
    ///             SenderCompID=GW\nTargetCompID=C1\nHaNodeName=gw-a\nHaPeers=gw-b\n\
    ///             HaEtcdEndpoints=127.0.0.1:2379\n[SESSION]\nBeginString=FIX.4.4\n";
    /// let settings = Settings::parse(text, "gw.cfg".as_ref())?;
    /// let config = HaConfig::from_settings(settings.sessions[0].ha.as_ref().unwrap());
    /// assert_eq!((config.node.as_str(), config.group.as_str()), ("gw-a", "default"));
    /// assert_eq!(config.validate(), Ok(()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_settings(ha: &peregrine_engine::config::HaSettings) -> Self {
        let mut config = HaConfig::new(&ha.node_name, &ha.group, ha.etcd_endpoints.clone());
        config.peers = ha.peers.clone();
        config.lease_ttl = Duration::from_secs(ha.lease_ttl_secs);
        config
    }

    /// The key whose holder leads the group.
    pub fn leader_key(&self) -> String {
        format!(
            "{}/{}/leader",
            self.key_prefix.trim_end_matches('/'),
            self.group
        )
    }

    /// The endpoints as URLs (`http://` added where no scheme is given).
    pub fn endpoint_urls(&self) -> Vec<String> {
        self.endpoints
            .iter()
            .map(|e| {
                if e.contains("://") {
                    e.clone()
                } else {
                    format!("http://{e}")
                }
            })
            .collect()
    }

    /// The margin for a lease of `ttl`: the configured one, else a tenth of the TTL
    /// and at least 100 ms; never more than a third of the TTL, so that a node stays
    /// leader across at least two keep-alives.
    pub fn margin_for(&self, ttl: Duration) -> Duration {
        let margin = self
            .margin
            .unwrap_or_else(|| (ttl / 10).max(Duration::from_millis(100)));
        margin.min(ttl / 3)
    }

    /// The TTL in whole seconds, as etcd takes it.
    pub fn lease_ttl_secs(&self) -> i64 {
        self.lease_ttl.as_secs() as i64
    }

    /// Checks every field.
    ///
    /// # Errors
    ///
    /// The first field that is wrong, and why ([`HaConfigError`]).
    pub fn validate(&self) -> Result<(), HaConfigError> {
        check_name("HaNodeName", &self.node)?;
        check_name("HaGroup", &self.group)?;
        for peer in &self.peers {
            check_name("HaPeers", peer)?;
            if *peer == self.node {
                return Err(HaConfigError::new(
                    "HaPeers",
                    format!("names this node ({peer}): peers are the other nodes"),
                ));
            }
        }
        for (i, peer) in self.peers.iter().enumerate() {
            if self.peers[..i].contains(peer) {
                return Err(HaConfigError::new("HaPeers", format!("names {peer} twice")));
            }
        }
        if self.endpoints.is_empty() {
            return Err(HaConfigError::new(
                "HaEtcdEndpoints",
                "names no etcd endpoint".to_string(),
            ));
        }
        for e in &self.endpoints {
            check_endpoint(e)?;
        }
        if self.lease_ttl < Duration::from_secs(1) || self.lease_ttl > MAX_LEASE_TTL {
            return Err(HaConfigError::new(
                "HaLeaseTTL",
                format!(
                    "{:?} is outside 1..={} seconds",
                    self.lease_ttl,
                    MAX_LEASE_TTL.as_secs()
                ),
            ));
        }
        if self.lease_ttl.subsec_nanos() != 0 {
            return Err(HaConfigError::new(
                "HaLeaseTTL",
                format!("{:?} is not whole seconds (etcd's unit)", self.lease_ttl),
            ));
        }
        if let Some(m) = self.margin {
            if m.is_zero() || m >= self.lease_ttl / 3 {
                return Err(HaConfigError::new(
                    "margin",
                    format!("{m:?} must be above zero and under a third of the TTL"),
                ));
            }
        }
        if self.key_prefix.is_empty() || !self.key_prefix.starts_with('/') {
            return Err(HaConfigError::new(
                "key prefix",
                format!("{:?} must start with '/'", self.key_prefix),
            ));
        }
        Ok(())
    }
}

fn check_name(key: &'static str, name: &str) -> Result<(), HaConfigError> {
    if name.is_empty() {
        return Err(HaConfigError::new(key, "is empty".to_string()));
    }
    if name.len() > 128 {
        return Err(HaConfigError::new(
            key,
            format!("is {} bytes long (at most 128)", name.len()),
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(HaConfigError::new(
            key,
            format!("{name:?} has {c:?}: letters, digits, '-', '_' and '.' only"),
        ));
    }
    Ok(())
}

fn check_endpoint(e: &str) -> Result<(), HaConfigError> {
    let hostport = if let Some(rest) = e.strip_prefix("http://") {
        rest
    } else if e.starts_with("https://") {
        return Err(HaConfigError::new(
            "HaEtcdEndpoints",
            format!("{e:?}: TLS to etcd is not supported yet (http:// or host:port)"),
        ));
    } else if e.contains("://") {
        return Err(HaConfigError::new(
            "HaEtcdEndpoints",
            format!("{e:?}: only http:// or host:port"),
        ));
    } else {
        e
    };
    let hostport = hostport.trim_end_matches('/');
    let port_ok = hostport
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0));
    if !port_ok || hostport.contains('/') {
        return Err(HaConfigError::new(
            "HaEtcdEndpoints",
            format!("{e:?} is not host:port"),
        ));
    }
    Ok(())
}

/// A field of [`HaConfig`] that is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaConfigError {
    /// The `.cfg` key (or field) at fault.
    pub key: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

impl HaConfigError {
    fn new(key: &'static str, reason: String) -> Self {
        HaConfigError { key, reason }
    }
}

impl fmt::Display for HaConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.reason)
    }
}

impl std::error::Error for HaConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok() -> HaConfig {
        let mut c = HaConfig::new("a", "g1", ["127.0.0.1:2379", "http://etcd-2:2379"]);
        c.peers = vec!["b".into(), "c".into()];
        c
    }

    #[test]
    fn each_wrong_field_is_named() {
        assert_eq!(ok().validate(), Ok(()));
        type Case = (fn(&mut HaConfig), &'static str, &'static str);
        let cases: [Case; 9] = [
            (|c| c.node.clear(), "HaNodeName", "is empty"),
            (|c| c.group = "a/b".into(), "HaGroup", "'/'"),
            (|c| c.peers.push("a".into()), "HaPeers", "this node"),
            (|c| c.peers.push("b".into()), "HaPeers", "twice"),
            (|c| c.endpoints.clear(), "HaEtcdEndpoints", "no etcd"),
            (
                |c| c.endpoints.push("etcd".into()),
                "HaEtcdEndpoints",
                "host:port",
            ),
            (
                |c| c.endpoints.push("https://e:1".into()),
                "HaEtcdEndpoints",
                "TLS",
            ),
            (|c| c.lease_ttl = Duration::ZERO, "HaLeaseTTL", "outside"),
            (
                |c| c.lease_ttl = Duration::from_millis(1500),
                "HaLeaseTTL",
                "whole",
            ),
        ];
        for (change, key, words) in cases {
            let mut c = ok();
            change(&mut c);
            let e = c.validate().unwrap_err();
            assert_eq!(e.key, key, "{e}");
            assert!(e.reason.contains(words), "{e}");
        }
    }

    #[test]
    fn the_margin_is_a_tenth_at_least_100ms_at_most_a_third() {
        let c = ok();
        assert_eq!(
            c.margin_for(Duration::from_secs(1)),
            Duration::from_millis(100)
        );
        assert_eq!(
            c.margin_for(Duration::from_secs(5)),
            Duration::from_millis(500)
        );
        let mut c = ok();
        c.margin = Some(Duration::from_secs(9));
        assert_eq!(c.margin_for(Duration::from_secs(3)), Duration::from_secs(1));
    }
}
