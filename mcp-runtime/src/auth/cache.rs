//! [`TokenCache`]: the tokens a verifier accepted, so that a client presenting the same token on
//! every request costs one verification rather than one per request.
//!
//! Clients keep an access token for its lifetime and send it with every request. Verifying it
//! again each time is the costliest step of an authorized request by far (a signature check of
//! 100 µs and more; an HTTP round trip to the issuer for introspection), while the verdict
//! cannot change until the token expires or what it was checked against changes. The cache holds
//! accepted tokens under the SHA-256 of the token (never the token itself) until a moment the
//! verifier sets, and with a *tag* that the verifier compares on every use: the JWT verifier tags
//! an entry with the generation of the key set that verified it, so that keys fetched anew (a
//! rotation, a key withdrawn) make every entry verify again. Refused tokens are not kept.
//!
//! The cache is bounded: when full, expired entries go first, then the oldest.

use crate::rt::Instant;
use std::collections::HashMap;

use sha2::{Digest, Sha256};

use super::AccessToken;

/// The key of a token in the cache: its SHA-256.
pub(crate) type CacheKey = [u8; 32];

/// Accepted tokens, by their hash (see the module docs).
pub(crate) struct TokenCache {
    max_entries: usize,
    entries: parking_lot::RwLock<HashMap<CacheKey, Entry>>,
}

struct Entry {
    token: AccessToken,
    tag: u64,
    stored: Instant,
    until: Instant,
}

impl TokenCache {
    /// A cache of at most `max_entries` tokens; zero turns it off.
    pub(crate) fn new(max_entries: usize) -> Self {
        TokenCache {
            max_entries,
            entries: parking_lot::RwLock::new(HashMap::new()),
        }
    }

    /// How many tokens the cache holds at most from now on.
    pub(crate) fn set_max_entries(&mut self, max_entries: usize) {
        self.max_entries = max_entries;
    }

    /// The key of `token`.
    pub(crate) fn key(token: &str) -> CacheKey {
        Sha256::digest(token.as_bytes()).into()
    }

    /// The token cached under `key` with `tag`, if it is still within its time.
    pub(crate) fn get(&self, key: &CacheKey, tag: u64) -> Option<AccessToken> {
        let entries = self.entries.read();
        let entry = entries.get(key)?;
        (entry.tag == tag && Instant::now() < entry.until).then(|| entry.token.clone())
    }

    /// Caches `token` under `key` with `tag` until `until`.
    pub(crate) fn insert(&self, key: CacheKey, token: &AccessToken, tag: u64, until: Instant) {
        let now = Instant::now();
        if self.max_entries == 0 || until <= now {
            return;
        }
        let mut entries = self.entries.write();
        if entries.len() >= self.max_entries && !entries.contains_key(&key) {
            entries.retain(|_, entry| entry.until > now);
            while entries.len() >= self.max_entries {
                let Some(oldest) = entries
                    .iter()
                    .min_by_key(|(_, entry)| entry.stored)
                    .map(|(key, _)| *key)
                else {
                    break;
                };
                entries.remove(&oldest);
            }
        }
        entries.insert(
            key,
            Entry {
                token: token.clone(),
                tag,
                stored: now,
                until,
            },
        );
    }

    /// Until when the token cached under `key` is kept.
    #[cfg(test)]
    pub(crate) fn until(&self, key: &CacheKey) -> Option<Instant> {
        self.entries.read().get(key).map(|entry| entry.until)
    }

    /// How many tokens are cached, expired ones included.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.read().len()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(60)
    }

    #[test]
    fn the_cache_is_bounded_and_evicts_the_expired_then_the_oldest() {
        let cache = TokenCache::new(2);
        let token = AccessToken::new().with_subject("alice");
        cache.insert([1; 32], &token, 0, later());
        cache.insert([2; 32], &token, 0, later());
        cache.insert([3; 32], &token, 0, later());
        assert_eq!(cache.get(&[1; 32], 0), None);
        assert_eq!(cache.get(&[2; 32], 0), Some(token.clone()));
        assert_eq!(cache.get(&[3; 32], 0), Some(token.clone()));
        assert_eq!(cache.len(), 2);
        // Nothing is cached past its time.
        cache.insert([4; 32], &token, 0, Instant::now());
        assert_eq!(cache.get(&[4; 32], 0), None);
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn an_entry_serves_only_its_tag() {
        let cache = TokenCache::new(10);
        let token = AccessToken::new().with_subject("alice");
        cache.insert([1; 32], &token, 7, later());
        assert_eq!(cache.get(&[1; 32], 8), None);
        assert_eq!(cache.get(&[1; 32], 7), Some(token));
    }

    #[test]
    fn zero_entries_turn_the_cache_off() {
        let cache = TokenCache::new(0);
        cache.insert([1; 32], &AccessToken::new(), 0, later());
        assert_eq!(cache.get(&[1; 32], 0), None);
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn the_key_is_the_sha256_of_the_token() {
        assert_eq!(
            TokenCache::key("abc")[..4],
            [0xba, 0x78, 0x16, 0xbf],
            "SHA-256(\"abc\") begins ba7816bf"
        );
    }
}
