//! The API key as a type that cannot leak by accident.
//!
//! A key that lands in a log file, a crash report or an error shown on screen is a key someone
//! else can use. `ApiKey` prints as `ApiKey(…)` in `Debug`, has no `Display`, is not
//! `Serialize`, and hands out its text only through [`ApiKey::expose`], which the HTTP
//! transport calls once per request to fill the `Authorization` header.

use std::fmt;

/// An API key for the platform. Compared in constant time so that equality checks do not
/// reveal how much of two keys agree.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key. Surrounding whitespace (a pasted newline) is dropped.
    pub fn new(key: impl Into<String>) -> Self {
        let key: String = key.into();
        let trimmed = key.trim();
        if trimmed.len() == key.len() {
            Self(key)
        } else {
            Self(trimmed.to_owned())
        }
    }

    /// The key's text, for the `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

impl PartialEq for ApiKey {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

impl Eq for ApiKey {}

impl std::hash::Hash for ApiKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl From<String> for ApiKey {
    fn from(key: String) -> Self {
        Self::new(key)
    }
}

impl From<&str> for ApiKey {
    fn from(key: &str) -> Self {
        Self::new(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_the_key() {
        let key = ApiKey::new("ddk_live_supersecret");
        let shown = format!("{key:?} {:#?}", Some(&key));
        assert!(!shown.contains("supersecret"), "{shown}");
        assert!(shown.contains("ApiKey(…)"));
    }

    #[test]
    fn pasted_whitespace_is_dropped_and_keys_compare_by_value() {
        assert_eq!(ApiKey::new(" abc\n"), ApiKey::new("abc"));
        assert_ne!(ApiKey::new("abc"), ApiKey::new("abd"));
        assert_ne!(ApiKey::new("abc"), ApiKey::new("abcd"));
        assert_eq!(ApiKey::new("abc").expose(), "abc");
    }
}
