//! Store quotas (DESIGN §12): a bound on the bytes all live records take, and on the bytes one
//! principal's records take, so no caller (anonymous ones included) can fill the disk or Redis.
//! A record counts from its `put` until it is deleted, swept or expires (Redis).

use std::collections::HashMap;

use crate::store::StoreError;

/// Default bound on the bytes of every live record together: 1 GiB.
pub const DEFAULT_TOTAL_QUOTA: u64 = 1 << 30;
/// Default bound on the bytes of one principal's live records: 256 MiB.
pub const DEFAULT_PRINCIPAL_QUOTA: u64 = 256 << 20;

/// How many bytes the store may hold, in all and per principal. A record counts for
/// [`Record::size`](crate::Record::size) bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Bytes of every live record together.
    pub total: u64,
    /// Bytes of one principal's live records.
    pub per_principal: u64,
}

impl Default for Quota {
    fn default() -> Self {
        Self { total: DEFAULT_TOTAL_QUOTA, per_principal: DEFAULT_PRINCIPAL_QUOTA }
    }
}

impl Quota {
    /// A quota of `total` bytes in all and `per_principal` bytes per principal.
    pub fn new(total: u64, per_principal: u64) -> Self {
        Self { total, per_principal }
    }
}

/// Which bound a refused record would have crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaScope {
    /// The store's total.
    Total,
    /// The principal's share.
    Principal,
}

impl std::fmt::Display for QuotaScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Total => "total",
            Self::Principal => "per-principal",
        })
    }
}

/// The refusal for a record of `size` bytes when `used` of `limit` are taken.
pub(crate) fn exceeded(scope: QuotaScope, size: u64, used: u64, limit: u64) -> StoreError {
    StoreError::QuotaExceeded { scope, size, used, limit }
}

/// Bytes held, in all and per principal (the memory and redb stores keep it in process; redb
/// rebuilds it from its table when it opens).
#[derive(Debug, Default)]
pub(crate) struct Usage {
    total: u64,
    by_principal: HashMap<String, u64>,
}

impl Usage {
    /// Counts a record of `size` bytes for `principal` when both bounds allow it.
    pub(crate) fn admit(
        &mut self,
        quota: &Quota,
        principal: &str,
        size: u64,
    ) -> Result<(), StoreError> {
        let mine = self.by_principal.get(principal).copied().unwrap_or(0);
        if self.total.saturating_add(size) > quota.total {
            return Err(exceeded(QuotaScope::Total, size, self.total, quota.total));
        }
        if mine.saturating_add(size) > quota.per_principal {
            return Err(exceeded(QuotaScope::Principal, size, mine, quota.per_principal));
        }
        self.add(principal, size);
        Ok(())
    }

    /// Counts a record without checking (a record already in the store).
    pub(crate) fn add(&mut self, principal: &str, size: u64) {
        self.total = self.total.saturating_add(size);
        let mine = self.by_principal.entry(principal.to_owned()).or_default();
        *mine = mine.saturating_add(size);
    }

    /// Forgets a record that was removed (or never written).
    pub(crate) fn release(&mut self, principal: &str, size: u64) {
        self.total = self.total.saturating_sub(size);
        if let Some(mine) = self.by_principal.get_mut(principal) {
            *mine = mine.saturating_sub(size);
            if *mine == 0 {
                self.by_principal.remove(principal);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_bounds_hold_and_release_gives_room_back() {
        let quota = Quota::new(100, 60);
        let mut usage = Usage::default();
        assert!(usage.admit(&quota, "a", 60).is_ok());
        let refused = usage.admit(&quota, "a", 1);
        assert!(
            matches!(refused, Err(StoreError::QuotaExceeded { scope: QuotaScope::Principal, .. })),
            "{refused:?}"
        );
        assert!(usage.admit(&quota, "b", 40).is_ok());
        let refused = usage.admit(&quota, "c", 1);
        assert!(
            matches!(refused, Err(StoreError::QuotaExceeded { scope: QuotaScope::Total, .. })),
            "{refused:?}"
        );
        usage.release("a", 60);
        assert_eq!(usage.total, 40);
        assert!(usage.admit(&quota, "c", 60).is_ok());
    }
}
