//! Keyset pagination: lists are ordered by creation time, then id, and a page ends where the
//! next one starts, so an item created or deleted while a client pages is never repeated and
//! no other item is skipped (an offset would do both).
//!
//! The cursor names the last item of a page and the list it belongs to, signed with a key kept
//! in the database (HMAC-SHA-256): it is opaque to clients, a forged or altered one is refused,
//! and one from another list (another account's projects, another project's domains) cannot be
//! replayed there.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use rusqlite::{Connection, params};
use sha2::Sha256;

use crate::{Error, Result};

/// Items on a page when the client does not say.
pub const DEFAULT_LIMIT: u32 = 100;
/// The most items one page may ask for.
pub const MAX_LIMIT: u32 = 1000;

/// Bytes of the MAC kept in a cursor: 128 bits, enough that a guess is hopeless.
const MAC_LEN: usize = 16;

/// Where a page starts: after the item with this creation time (as stored) and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct After {
    pub created_at: String,
    pub id: String,
}

/// What a caller asked for: at most `limit` items after `after`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: u32,
    pub after: Option<After>,
}

/// One page; `next` is where the following page starts, `None` on the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page<Items> {
    pub items: Items,
    pub next: Option<After>,
}

impl<T> Page<Vec<T>> {
    /// Builds a page from up to `limit + 1` rows read in list order: the extra row only says
    /// that more follow.
    pub fn from_rows(mut rows: Vec<T>, limit: u32, key: impl Fn(&T) -> After) -> Self {
        let more = rows.len() > limit as usize;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(key) } else { None };
        Self { items: rows, next }
    }
}

/// The list a cursor belongs to, e.g. `projects` of one account.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListScope<'a> {
    pub list: &'static str,
    pub owner: &'a str,
}

/// Signs and checks cursors with the database's key.
#[derive(Clone)]
pub struct CursorKey([u8; 32]);

impl std::fmt::Debug for CursorKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorKey(..)")
    }
}

/// `meta` key of the cursor signing key (created by migration 3).
const CURSOR_KEY: &str = "cursor_key";

impl CursorKey {
    /// The database's key.
    pub fn load(conn: &Connection) -> Result<Self> {
        let hex: String = conn.query_row(
            "SELECT value FROM meta WHERE key = ?1",
            params![CURSOR_KEY],
            |row| row.get(0),
        )?;
        let mut key = [0u8; 32];
        if hex.len() != 64 {
            return Err(Error::Corrupt("cursor key".into()));
        }
        for (slot, pair) in key.iter_mut().zip(hex.as_bytes().chunks(2)) {
            let text =
                std::str::from_utf8(pair).map_err(|_| Error::Corrupt("cursor key".into()))?;
            *slot =
                u8::from_str_radix(text, 16).map_err(|_| Error::Corrupt("cursor key".into()))?;
        }
        Ok(Self(key))
    }

    #[cfg(test)]
    pub fn from_bytes(key: [u8; 32]) -> Self {
        Self(key)
    }

    fn mac(&self, scope: ListScope<'_>, payload: &[u8]) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(scope.list.as_bytes());
        mac.update(b"\0");
        mac.update(scope.owner.as_bytes());
        mac.update(b"\0");
        mac.update(payload);
        mac
    }

    /// The cursor of the page that starts after `after` in `scope`.
    pub fn seal(&self, scope: ListScope<'_>, after: &After) -> String {
        let payload = format!("{}\n{}", after.created_at, after.id);
        let tag = self.mac(scope, payload.as_bytes()).finalize().into_bytes();
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(payload.as_bytes()),
            URL_SAFE_NO_PAD.encode(&tag[..MAC_LEN])
        )
    }

    /// Where a page of `scope` starts, or `422 invalid_cursor`.
    pub fn open(&self, scope: ListScope<'_>, cursor: &str) -> Result<After> {
        let invalid = || {
            Error::api(
                axum::http::StatusCode::UNPROCESSABLE_ENTITY,
                domain_desk_api::ErrorCode::InvalidCursor,
                "This cursor is not one this list gave out; start again without a cursor.",
            )
        };
        let (payload, tag) = cursor.split_once('.').ok_or_else(invalid)?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| invalid())?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid())?;
        if tag.len() != MAC_LEN {
            return Err(invalid());
        }
        self.mac(scope, &payload)
            .verify_truncated_left(&tag)
            .map_err(|_| invalid())?;
        let payload = String::from_utf8(payload).map_err(|_| invalid())?;
        let (created_at, id) = payload.split_once('\n').ok_or_else(invalid)?;
        Ok(After {
            created_at: created_at.to_owned(),
            id: id.to_owned(),
        })
    }
}

/// Checks a page size: 1 to [`MAX_LIMIT`], or `422 invalid_limit`.
pub fn check_limit(limit: Option<i64>) -> Result<u32> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(limit) if (1..=i64::from(MAX_LIMIT)).contains(&limit) => Ok(limit as u32),
        Some(limit) => Err(Error::api(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            domain_desk_api::ErrorCode::InvalidLimit,
            format!("limit must be 1 to {MAX_LIMIT}; {limit} is out of range."),
        )),
    }
}

/// The SQL parameters of "after this item": the empty string sorts before every stored time,
/// so a first page needs no second query text.
pub fn after_params(after: &Option<After>) -> (&str, &str) {
    match after {
        Some(after) => (after.created_at.as_str(), after.id.as_str()),
        None => ("", ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROJECTS_A: ListScope<'static> = ListScope {
        list: "projects",
        owner: "acct_a",
    };

    fn after() -> After {
        After {
            created_at: "2026-01-01T00:00:00.000000Z".into(),
            id: "prj_1".into(),
        }
    }

    #[test]
    fn a_cursor_opens_in_its_own_list_only() {
        let key = CursorKey::from_bytes([7; 32]);
        let cursor = key.seal(PROJECTS_A, &after());
        assert_eq!(key.open(PROJECTS_A, &cursor).unwrap(), after());
        let other_owner = ListScope {
            list: "projects",
            owner: "acct_b",
        };
        let other_list = ListScope {
            list: "domains",
            owner: "acct_a",
        };
        assert!(key.open(other_owner, &cursor).is_err());
        assert!(key.open(other_list, &cursor).is_err());
        assert!(
            CursorKey::from_bytes([8; 32])
                .open(PROJECTS_A, &cursor)
                .is_err()
        );
    }

    #[test]
    fn altered_or_malformed_cursors_are_refused() {
        let key = CursorKey::from_bytes([7; 32]);
        let cursor = key.seal(PROJECTS_A, &after());
        let (payload, tag) = cursor.split_once('.').unwrap();
        let forged_payload = URL_SAFE_NO_PAD.encode(b"2000-01-01T00:00:00.000000Z\nprj_0");
        for bad in [
            String::new(),
            "x".into(),
            "..".into(),
            format!("{forged_payload}.{tag}"),
            format!("{payload}.{}", &tag[..4]),
            format!("{payload}."),
            payload.to_owned(),
            format!("{cursor}x"),
            "%%%.%%%".into(),
        ] {
            let err = key.open(PROJECTS_A, &bad).unwrap_err();
            assert!(err.to_string().contains("cursor"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn limits_are_checked() {
        assert_eq!(check_limit(None).unwrap(), DEFAULT_LIMIT);
        assert_eq!(check_limit(Some(1)).unwrap(), 1);
        assert_eq!(check_limit(Some(1000)).unwrap(), 1000);
        for bad in [0, -1, 1001, 1_000_000_000] {
            assert!(check_limit(Some(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_page_knows_whether_more_follow() {
        let key = |n: &u32| After {
            created_at: n.to_string(),
            id: n.to_string(),
        };
        let page = Page::from_rows(vec![1, 2, 3], 2, key);
        assert_eq!(page.items, vec![1, 2]);
        assert_eq!(page.next.unwrap().id, "2");
        let last = Page::from_rows(vec![1, 2], 2, key);
        assert_eq!(last.next, None);
    }
}
