//! One scheduler per API key for the whole process.
//!
//! The budget is per key, so two schedulers on one key would each think they own it and
//! together overrun it. The window, background polling, bulk jobs and the command line all
//! ask the pool for their client, and the pool hands out handles to the key's one queue.
//! Given a data directory, the pool's queues also share each key's budget with the queues of
//! other processes (the command line, another window) that use the same directory.
//!
//! The pool keeps at most [`DEFAULT_MAX_KEYS`] queues (or what [`ClientPool::with_max_keys`]
//! says): switching through many accounts must not leave a queue running for each. When a new
//! key would go past the bound, queues no one holds a handle to are dropped; if every queue is
//! in use, the new key is refused rather than given a second, uncoordinated queue.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::client::Client;
use crate::config::ClientConfig;
use crate::error::{Error, Result};
use crate::secret::ApiKey;

/// Queues kept at once by default.
pub const DEFAULT_MAX_KEYS: usize = 64;

#[derive(Clone)]
pub struct ClientPool {
    clients: Arc<Mutex<HashMap<(String, ApiKey), Client>>>,
    /// Given to every client started without a data directory of its own.
    data_dir: Arc<Mutex<Option<PathBuf>>>,
    max_keys: usize,
}

impl Default for ClientPool {
    fn default() -> Self {
        Self::with_max_keys(DEFAULT_MAX_KEYS)
    }
}

impl std::fmt::Debug for ClientPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.clients.lock().map(|c| c.len()).unwrap_or(0);
        f.debug_struct("ClientPool").field("keys", &count).finish()
    }
}

impl ClientPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// A pool whose queues share each key's budget across processes through `dir`.
    pub fn with_data_dir(dir: impl Into<PathBuf>) -> Self {
        let pool = Self::default();
        pool.set_data_dir(dir);
        pool
    }

    /// Queues started from now on share each key's budget across processes through `dir`
    /// (the app learns its data directory only once it runs).
    pub fn set_data_dir(&self, dir: impl Into<PathBuf>) {
        *self.data_dir.lock().unwrap_or_else(|p| p.into_inner()) = Some(dir.into());
    }

    /// A pool that keeps at most `max_keys` queues (at least one).
    pub fn with_max_keys(max_keys: usize) -> Self {
        Self {
            clients: Arc::default(),
            data_dir: Arc::default(),
            max_keys: max_keys.max(1),
        }
    }

    /// How many queues the pool holds now.
    pub fn len(&self) -> usize {
        self.clients.lock().map(|c| c.len()).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The client of `config`'s key on `config`'s platform, started on first use. A queue
    /// that already runs keeps its settings; use [`Client::follow_platform_clock`] when
    /// the clock of a running one changes.
    pub fn client(&self, mut config: ClientConfig) -> Result<Client> {
        if config.data_dir.is_none() {
            config
                .data_dir
                .clone_from(&self.data_dir.lock().unwrap_or_else(|p| p.into_inner()));
        }
        let id = (
            config.base_url.trim_end_matches('/').to_owned(),
            config.api_key.clone(),
        );
        // A poisoned lock only means another thread panicked while holding it; the map
        // itself is still consistent (inserts are single calls), so keep using it.
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(client) = clients.get(&id).filter(|c| c.is_running()) {
            return Ok(client.clone());
        }
        if !clients.contains_key(&id) && clients.len() >= self.max_keys {
            // Only the pool's own handle left: no caller is waiting on that queue.
            clients.retain(|_, client| client.is_running() && client.handles() > 1);
            if clients.len() >= self.max_keys {
                return Err(Error::Setup(format!(
                    "{} API keys are in use at once, the most this app keeps; \
                     finish or close work on another account first",
                    self.max_keys
                )));
            }
        }
        let client = Client::new(config)?;
        clients.insert(id, client.clone());
        Ok(client)
    }

    /// Stops handing out the key's queue; it ends once the last handle is dropped.
    pub fn forget(&self, base_url: &str, api_key: &ApiKey) {
        let mut clients = self.clients.lock().unwrap_or_else(|p| p.into_inner());
        clients.remove(&(base_url.trim_end_matches('/').to_owned(), api_key.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn one_queue_per_key_and_platform() {
        let pool = ClientPool::new();
        let config = |key: &str| ClientConfig::new("http://127.0.0.1:9", key);
        let a = pool.client(config("key-a")).unwrap();
        let again = pool.client(config("key-a")).unwrap();
        let b = pool.client(config("key-b")).unwrap();
        assert!(a.same_queue(&again));
        assert!(a.bulk().same_queue(&again));
        assert!(!a.same_queue(&b));
        let elsewhere = pool
            .client(ClientConfig::new("http://127.0.0.1:10", "key-a"))
            .unwrap();
        assert!(!a.same_queue(&elsewhere));
        assert!(!format!("{pool:?}").contains("key-a"));
        pool.forget("http://127.0.0.1:9/", &ApiKey::new("key-a"));
        assert!(!a.same_queue(&pool.client(config("key-a")).unwrap()));
    }

    #[tokio::test]
    async fn idle_queues_make_room_and_busy_ones_are_never_doubled() {
        let pool = ClientPool::with_max_keys(2);
        let config = |key: &str| ClientConfig::new("http://127.0.0.1:9", key);
        let held = pool.client(config("held")).unwrap();
        drop(pool.client(config("idle")).unwrap());
        assert_eq!(pool.len(), 2);
        // a third key: the queue no one holds goes, the held one stays
        let third = pool.client(config("third")).unwrap();
        assert_eq!(pool.len(), 2);
        assert!(held.same_queue(&pool.client(config("held")).unwrap()));
        // both held: a fourth key is refused, not given a queue beside the pool's
        let refused = pool.client(config("fourth")).unwrap_err();
        assert!(matches!(refused, Error::Setup(_)), "{refused:?}");
        assert!(refused.to_string().contains("2 API keys"), "{refused}");
        assert_eq!(pool.len(), 2);
        drop(third);
        pool.client(config("fourth")).unwrap();
        assert_eq!(pool.len(), 2);
    }
}
