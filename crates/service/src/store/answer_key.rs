//! The name a remembered answer is stored under, and the SQL function that computes it.
//!
//! Its own module because two sides need it that must not need each other: the answers'
//! table (`store::idempotency`) and the migration that renamed its rows (migration 10 in
//! `store::migrations`, which calls the function from SQL).

use rusqlite::Connection;
use sha2::{Digest, Sha256};

use crate::Result;

/// The name of a remembered answer: the first 16 bytes of the SHA-256 of the API key's hash
/// (as the answers' `key_hash` writes it) and the `Idempotency-Key`. The answers' index holds
/// this and the row id alone, about a quarter of the bytes of the key's hash in hex and the
/// client's key (72–100 bytes an entry before migration 10), so its pages are a quarter as
/// many for the writer's page cache, and a lookup compares 16 bytes, not a 64-byte prefix
/// every entry shares. Scoped per API key as before (the key's hash is part of it). A collision needs two
/// of the at most [`crate::HistoryLimits::idempotency_answers`] keys remembered at once to
/// share 128 bits of SHA-256 (about 10⁻²⁹ for 100,000), and even then it would answer only a
/// request with the same fingerprint (anything else is refused with `422`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AnswerKey([u8; 16]);

impl AnswerKey {
    pub fn new(key_hash: &str, idempotency_key: &str) -> Self {
        let mut hasher = Sha256::new();
        hasher.update(key_hash.as_bytes());
        hasher.update(b"\n");
        hasher.update(idempotency_key.as_bytes());
        let digest = hasher.finalize();
        let mut key = [0; 16];
        key.copy_from_slice(&digest[..16]);
        Self(key)
    }

    /// The name as the answers' table stores it.
    pub fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }
}

/// The SQL function migration 10 names remembered answers with (`idempotency_answer_key(
/// key_hash, idem_key)`, [`AnswerKey::new`]): registered on a connection before its
/// migrations run.
pub fn register_answer_key_function(conn: &Connection) -> Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_scalar_function(
        "idempotency_answer_key",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let key_hash: String = ctx.get(0)?;
            let idempotency_key: String = ctx.get(1)?;
            Ok(AnswerKey::new(&key_hash, &idempotency_key).0.to_vec())
        },
    )?;
    Ok(())
}
