//! The high-availability keys (issue 26, `docs/standby.md`): `HaNodeName`, `HaPeers`,
//! `HaEtcdEndpoints`, `HaLeaseTTL`, `HaGroup`. The engine reads and checks them; the
//! leadership itself is `peregrine-ha`'s (the engine does not act on them yet).

use super::reader::Reader;
use super::ConfigError;

/// The keys, in the order they are documented.
pub(super) const HA_KEYS: [&str; 5] = [
    "HaNodeName",
    "HaPeers",
    "HaEtcdEndpoints",
    "HaLeaseTTL",
    "HaGroup",
];

/// `HaLeaseTTL` when not set, in seconds (etcd's own minimum with its default timings).
pub const DEFAULT_HA_LEASE_TTL: u64 = 2;
/// `HaGroup` when not set: every session of the engine in one group.
pub const DEFAULT_HA_GROUP: &str = "default";

/// A session's high-availability settings: present when `HaNodeName` is set.
///
/// ```
/// use peregrine_engine::config::Settings;
/// let text = "[DEFAULT]\nConnectionType=acceptor\nSocketAcceptPort=5001\n\
///             SenderCompID=ISLD\nTargetCompID=TW\nHaNodeName=gw-a\nHaPeers=gw-b,gw-c\n\
///             HaEtcdEndpoints=10.0.0.1:2379,http://10.0.0.2:2379\nHaLeaseTTL=2\n\
///             [SESSION]\nBeginString=FIX.4.4\nHaGroup=orders\n";
/// let settings = Settings::parse(text, "gw.cfg".as_ref())?;
/// let ha = settings.sessions[0].ha.as_ref().unwrap();
/// assert_eq!(ha.node_name, "gw-a");
/// assert_eq!(ha.peers, ["gw-b", "gw-c"]);
/// assert_eq!(ha.etcd_endpoints, ["10.0.0.1:2379", "http://10.0.0.2:2379"]);
/// assert_eq!((ha.lease_ttl_secs, ha.group.as_str()), (2, "orders"));
/// # Ok::<(), peregrine_engine::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HaSettings {
    /// `HaNodeName`: this node's name, the leader key's value while it leads.
    pub node_name: String,
    /// `HaPeers`: the other nodes' names (comma-separated; may be empty).
    pub peers: Vec<String>,
    /// `HaEtcdEndpoints`: etcd's client endpoints, `host:port` or `http://host:port`.
    pub etcd_endpoints: Vec<String>,
    /// `HaLeaseTTL`: the lease's TTL in seconds (1 to 3600, default 2).
    pub lease_ttl_secs: u64,
    /// `HaGroup`: the session group this session's leadership is decided for
    /// (default `default`).
    pub group: String,
}

/// Reads the keys; `None` when none is set.
pub(super) fn ha_settings(r: &Reader<'_>) -> Result<Option<HaSettings>, ConfigError> {
    let Some(node) = r.entry("HaNodeName") else {
        if let Some(e) = HA_KEYS[1..].iter().find_map(|k| r.entry(k)) {
            return Err(r.err(
                e,
                "needs HaNodeName (this node's name) with it, or no Ha key at all".into(),
            ));
        }
        return Ok(None);
    };
    check_name(r, node, &node.value)?;
    let list = |key: &str| -> Vec<String> {
        r.string(key)
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let peers = list("HaPeers");
    if let Some(e) = r.entry("HaPeers") {
        for (i, peer) in peers.iter().enumerate() {
            check_name(r, e, peer)?;
            if *peer == node.value {
                return Err(r.err(
                    e,
                    format!("names this node ({peer}): the peers are the other nodes"),
                ));
            }
            if peers[..i].contains(peer) {
                return Err(r.err(e, format!("names {peer} twice")));
            }
        }
    }
    let etcd_endpoints = list("HaEtcdEndpoints");
    match r.entry("HaEtcdEndpoints") {
        None => {
            return Err(r.missing(
                "HaEtcdEndpoints",
                "missing: HaNodeName needs etcd's endpoints (host:port,…)",
            ))
        }
        Some(e) if etcd_endpoints.is_empty() => {
            return Err(r.err(e, "names no endpoint".into()));
        }
        Some(e) => {
            for endpoint in &etcd_endpoints {
                check_endpoint(r, e, endpoint)?;
            }
        }
    }
    let group = match r.entry("HaGroup") {
        None => DEFAULT_HA_GROUP.to_string(),
        Some(e) => {
            check_name(r, e, &e.value)?;
            e.value.clone()
        }
    };
    Ok(Some(HaSettings {
        node_name: node.value.clone(),
        peers,
        etcd_endpoints,
        lease_ttl_secs: r.num("HaLeaseTTL")?,
        group,
    }))
}

/// Node and group names go into etcd keys and values: letters, digits, `-`, `_`, `.`.
fn check_name(r: &Reader<'_>, e: &super::SettingLine, name: &str) -> Result<(), ConfigError> {
    if name.is_empty() || name.len() > 128 {
        return Err(r.err(e, format!("{name:?} must be 1 to 128 characters")));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(r.err(
            e,
            format!("{name:?} has {c:?}: letters, digits, '-', '_' and '.' only"),
        ));
    }
    Ok(())
}

fn check_endpoint(
    r: &Reader<'_>,
    e: &super::SettingLine,
    endpoint: &str,
) -> Result<(), ConfigError> {
    if endpoint.starts_with("https://") {
        return Err(r.err(
            e,
            format!(
                "{endpoint:?}: TLS to etcd is not supported yet (host:port or http://host:port)"
            ),
        ));
    }
    let hostport = endpoint.strip_prefix("http://").unwrap_or(endpoint);
    let hostport = hostport.strip_suffix('/').unwrap_or(hostport);
    let ok = !hostport.contains('/')
        && hostport.rsplit_once(':').is_some_and(|(host, port)| {
            !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0)
        });
    if !ok {
        return Err(r.err(
            e,
            format!("{endpoint:?} is not host:port or http://host:port"),
        ));
    }
    Ok(())
}
