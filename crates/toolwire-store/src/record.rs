//! A stored record (the bytes of one offloaded result with who may read it and until when), its
//! random id, and the byte form the persistent stores keep.

use std::fmt;

use chrono::{DateTime, Utc};
use toolwire_core::Timestamp;

/// One stored result: the bytes, their MIME type, the principal who may read them, and when the
/// record was made and expires. A record lives exactly as long as the link that points at it.
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub struct Record {
    /// The stored bytes (for offloaded results: the v1 form).
    pub bytes: Vec<u8>,
    /// The MIME type of the bytes.
    pub mime_type: String,
    /// The only principal whose links may read the record.
    pub principal: String,
    /// When the record was made.
    pub created: Timestamp,
    /// When the record expires; no store returns it from then on.
    pub expires: Timestamp,
}

impl Record {
    /// A record.
    pub fn new(
        bytes: impl Into<Vec<u8>>,
        mime_type: impl Into<String>,
        principal: impl Into<String>,
        created: Timestamp,
        expires: Timestamp,
    ) -> Self {
        Self {
            bytes: bytes.into(),
            mime_type: mime_type.into(),
            principal: principal.into(),
            created,
            expires,
        }
    }

    /// The bytes the record counts for against a quota: its bytes, MIME type and principal.
    pub fn size(&self) -> u64 {
        let len = self.bytes.len() + self.mime_type.len() + self.principal.len();
        u64::try_from(len).unwrap_or(u64::MAX)
    }

    /// True when the record has expired at `now`.
    pub fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        self.expires.datetime() <= now
    }

    /// True when the record has expired by the system clock.
    pub fn is_expired(&self) -> bool {
        self.is_expired_at(Utc::now())
    }

    /// Milliseconds left until expiry at `now` (0 once expired).
    pub fn millis_left_at(&self, now: DateTime<Utc>) -> u64 {
        let left = (self.expires.datetime() - now).num_milliseconds();
        u64::try_from(left).unwrap_or(0)
    }

    /// The byte form kept by the persistent stores, in a buffer of exactly its size.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head_len() + self.bytes.len());
        self.write_head(&mut out, MAGIC);
        out.extend_from_slice(&self.bytes);
        out
    }

    /// Reads the byte form back; `None` when it is not one.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader(bytes.strip_prefix(MAGIC)?);
        let head = reader.head()?;
        Some(head.with_bytes(reader.0.to_vec()))
    }

    /// Everything but the bytes, and their length: the byte form of the [`Head`] a store keeps
    /// apart from the bytes (so that the bytes are written from where they are, never copied
    /// into one encoded buffer first).
    pub(crate) fn encode_head(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head_len() + 8);
        self.write_head(&mut out, HEAD_MAGIC);
        let len = u64::try_from(self.bytes.len()).unwrap_or(u64::MAX);
        out.extend_from_slice(&len.to_be_bytes());
        out
    }

    fn head_len(&self) -> usize {
        MAGIC.len() + 2 * TIMESTAMP_LEN + 8 + self.mime_type.len() + self.principal.len()
    }

    fn write_head(&self, out: &mut Vec<u8>, magic: &[u8]) {
        out.extend_from_slice(magic);
        encode_timestamp(out, self.created);
        encode_timestamp(out, self.expires);
        encode_field(out, self.mime_type.as_bytes());
        encode_field(out, self.principal.as_bytes());
    }
}

/// A record without its bytes, with their length ([`Record::encode_head`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) mime_type: String,
    pub(crate) principal: String,
    pub(crate) created: Timestamp,
    pub(crate) expires: Timestamp,
    /// The length of the bytes (0 in a head read from a whole record's byte form).
    pub(crate) len: u64,
}

impl Head {
    /// The head of `record` (its bytes dropped).
    pub(crate) fn of(record: Record) -> Self {
        let len = u64::try_from(record.bytes.len()).unwrap_or(u64::MAX);
        let Record { mime_type, principal, created, expires, .. } = record;
        Self { mime_type, principal, created, expires, len }
    }

    /// Reads [`Record::encode_head`]'s form back; `None` when it is not one.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let mut reader = Reader(bytes.strip_prefix(HEAD_MAGIC)?);
        let mut head = reader.head()?;
        head.len = u64::from_be_bytes(reader.take(8)?.try_into().ok()?);
        reader.0.is_empty().then_some(head)
    }

    /// The record with `bytes`.
    pub(crate) fn with_bytes(self, bytes: Vec<u8>) -> Record {
        let Self { mime_type, principal, created, expires, .. } = self;
        Record { bytes, mime_type, principal, created, expires }
    }

    /// What the record counts against the quota ([`Record::size`]).
    pub(crate) fn size(&self) -> u64 {
        let fields = u64::try_from(self.mime_type.len() + self.principal.len()).unwrap_or(u64::MAX);
        self.len.saturating_add(fields)
    }

    /// True when the record has expired at `now`.
    pub(crate) fn is_expired_at(&self, now: DateTime<Utc>) -> bool {
        self.expires.datetime() <= now
    }
}

impl fmt::Debug for Record {
    // The bytes can be megabytes: show their length only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("bytes", &format_args!("<{} bytes>", self.bytes.len()))
            .field("mime_type", &self.mime_type)
            .field("principal", &self.principal)
            .field("created", &self.created.to_string())
            .field("expires", &self.expires.to_string())
            .finish()
    }
}

/// Marks (and versions) the byte form.
const MAGIC: &[u8] = b"TWR1";
/// Marks (and versions) the byte form of a [`Head`].
const HEAD_MAGIC: &[u8] = b"TWH1";
/// Seconds (i64), nanoseconds (u32) and the number of fraction digits (u8).
const TIMESTAMP_LEN: usize = 13;

fn encode_timestamp(out: &mut Vec<u8>, at: Timestamp) {
    let at_dt = at.datetime();
    out.extend_from_slice(&at_dt.timestamp().to_be_bytes());
    out.extend_from_slice(&at_dt.timestamp_subsec_nanos().to_be_bytes());
    out.push(at.fraction_digits());
}

fn encode_field(out: &mut Vec<u8>, field: &[u8]) {
    // Fields are MIME types and principals, far below 4 GiB; a longer one is cut, never wrapped.
    let len = u32::try_from(field.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&field[..len as usize]);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn timestamp(&mut self) -> Option<Timestamp> {
        let seconds = i64::from_be_bytes(self.take(8)?.try_into().ok()?);
        let nanos = u32::from_be_bytes(self.take(4)?.try_into().ok()?);
        let digits = *self.take(1)?.first()?;
        let at = DateTime::from_timestamp(seconds, nanos)?;
        Some(Timestamp::with_fraction_digits(at, digits))
    }

    fn field(&mut self) -> Option<&'a [u8]> {
        let len = u32::from_be_bytes(self.take(4)?.try_into().ok()?);
        self.take(usize::try_from(len).ok()?)
    }

    /// The fields every byte form starts with, after its magic.
    fn head(&mut self) -> Option<Head> {
        let created = self.timestamp()?;
        let expires = self.timestamp()?;
        let mime_type = String::from_utf8(self.field()?.to_vec()).ok()?;
        let principal = String::from_utf8(self.field()?.to_vec()).ok()?;
        Some(Head { mime_type, principal, created, expires, len: 0 })
    }
}

/// The id of a stored record: 128 random bits from the operating system, as 32 lowercase hex
/// digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RecordId(u128);

impl RecordId {
    /// A new random id.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(Self(u128::from_be_bytes(bytes)))
    }

    /// Parses exactly 32 lowercase hex digits (the only form toolwire writes).
    pub fn parse(text: &str) -> Option<Self> {
        if text.len() != 32
            || !text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return None;
        }
        u128::from_str_radix(text, 16).ok().map(Self)
    }

    /// The id as a number (the redb key).
    pub(crate) fn as_u128(self) -> u128 {
        self.0
    }
}

impl fmt::Display for RecordId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    #[test]
    fn the_byte_form_round_trips() {
        for (created, expires) in [
            ("2026-11-29T10:00:00Z", "2026-11-29T11:00:00Z"),
            ("2026-11-29T10:00:00.123Z", "2026-11-29T11:00:00.5Z"),
            ("1969-12-31T23:59:59.999999999Z", "2026-11-29T11:00:00Z"),
        ] {
            let record = Record::new(
                b"{\"a\":1}".to_vec(),
                "application/json",
                "ab",
                at(created),
                at(expires),
            );
            let decoded = Record::decode(&record.encode()).unwrap();
            assert_eq!(decoded, record);
            assert_eq!(decoded.created.to_string(), created);
        }
    }

    #[test]
    fn truncated_byte_forms_are_refused() {
        let record = Record::new(
            vec![1, 2, 3],
            "text/plain",
            "p",
            at("2026-11-29T10:00:00Z"),
            at("2026-11-29T11:00:00Z"),
        );
        let bytes = record.encode();
        let header = bytes.len() - 3;
        for cut in 0..header {
            assert_eq!(Record::decode(&bytes[..cut]), None, "cut at {cut}");
        }
        assert_eq!(Record::decode(b"XXXX"), None);
    }

    #[test]
    fn ids_are_32_lowercase_hex_digits() {
        let id = RecordId::generate().unwrap();
        let text = id.to_string();
        assert_eq!(text.len(), 32);
        assert_eq!(RecordId::parse(&text), Some(id));
        assert_eq!(RecordId::parse(&text.to_uppercase().replace(char::is_numeric, "A")), None);
        assert_eq!(RecordId::parse("0000000000000000000000000000000"), None);
        assert_eq!(RecordId::parse("+0000000000000000000000000000000"), None);
        assert_eq!(RecordId::parse("00000000000000000000000000000001"), Some(RecordId(1)));
        assert_ne!(RecordId::generate().unwrap(), id);
    }
}
