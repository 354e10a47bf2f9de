//! The member forms every wire format shares, below the v1 form, the legacy envelope and the
//! lowerings that write and read them: the small pieces (base64, part URIs, prefixed `_meta`
//! keys), pagination, the query echo, resource links, parts and stored links in the v1 part
//! JSON, the envelope shape of `structuredContent`, and the readers of those members.

mod envelope;
mod members;
mod pieces;
mod read;

pub use envelope::{EnvelopeData, EnvelopeStructured};
pub use members::ResourceLink;
pub(crate) use members::{PaginationJson, Parts, QueryJson, StoredLinks};
pub(crate) use pieces::PrefixedKey;
pub use pieces::{Annotations, Base64, EmptyObject, PartUri, PrefixedOne, Roles};
pub use read::V1Error;
pub(crate) use read::{
    as_u64, child, object, opt_string, opt_timestamp, opt_u64, parse_pagination, parse_parts,
    parse_query, parse_stored_links, parse_timestamp, present, required_string, wrong,
};
