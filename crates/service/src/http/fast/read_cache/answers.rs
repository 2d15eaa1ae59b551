//! The answers the read cache keeps, by caller and URI, each with the store's generation it was
//! read at: the part of the cache that the HTTP state owns
//! ([`crate::http::state::AppState::read_cache`]). It imports nothing of the state or of the
//! middleware ([`super`]) that uses it, so neither is in a ring with the other.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use bytes::Bytes;

/// Most answers kept; the cache is cleared when it would grow past this.
const CAPACITY: usize = 4096;

#[derive(Debug, Default)]
pub struct ReadCache {
    answers: Mutex<HashMap<(String, String), Kept>>,
}

#[derive(Debug, Clone)]
struct Kept {
    generation: u64,
    body: Bytes,
}

impl ReadCache {
    pub(super) fn get(&self, key: &(String, String), generation: u64) -> Option<Bytes> {
        let answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        answers
            .get(key)
            .filter(|kept| kept.generation == generation)
            .map(|kept| kept.body.clone())
    }

    pub(super) fn put(&self, key: (String, String), generation: u64, body: Bytes) {
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        if answers.len() >= CAPACITY && !answers.contains_key(&key) {
            answers.clear();
        }
        answers.insert(key, Kept { generation, body });
    }

    /// Forgets every answer (a reset changes data without the store's writes alone telling).
    pub fn clear(&self) {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_served_only_at_its_generation() {
        let cache = ReadCache::default();
        let key = ("acct".to_owned(), "/v1/projects".to_owned());
        cache.put(key.clone(), 7, Bytes::from_static(b"[1]"));
        assert_eq!(cache.get(&key, 7).unwrap(), Bytes::from_static(b"[1]"));
        assert!(cache.get(&key, 8).is_none());
        let other = ("other".to_owned(), "/v1/projects".to_owned());
        assert!(cache.get(&other, 7).is_none());
    }

    #[test]
    fn a_full_cache_starts_over() {
        let cache = ReadCache::default();
        for n in 0..CAPACITY + 1 {
            cache.put(("a".into(), n.to_string()), 1, Bytes::new());
        }
        assert!(cache.answers.lock().unwrap().len() <= CAPACITY);
    }
}
