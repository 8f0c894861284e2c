//! The subscriber archive of the source documents: the chunked log's record type.

use crate::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// What a caller registers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NewSubscriber {
    pub subscriber_id: String,
    pub delivery_address: String,
}

/// A stored subscriber: the registration plus the sequence the log gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscriber {
    pub sequence: u64,
    pub subscriber_id: String,
    pub delivery_address: String,
}

/// The contract's rule for a registration (docs/http.md): both fields non-empty, checked in this order. Only the
/// lengths matter, so a caller's text never has to be copied to decide it.
pub fn check_required(subscriber_id_len: usize, delivery_address_len: usize) -> Result<()> {
    if subscriber_id_len == 0 {
        return Err(Error::invalid_argument("subscriberId is required"));
    }
    if delivery_address_len == 0 {
        return Err(Error::invalid_argument("deliveryAddress is required"));
    }
    Ok(())
}

impl NewSubscriber {
    pub fn validate(&self) -> Result<()> {
        check_required(self.subscriber_id.len(), self.delivery_address.len())
    }

    pub fn with_sequence(self, sequence: u64) -> Subscriber {
        Subscriber { sequence, subscriber_id: self.subscriber_id, delivery_address: self.delivery_address }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn both_fields_are_required_in_order() {
        let both_empty = NewSubscriber::default().validate().unwrap_err();
        assert_eq!((both_empty.code, both_empty.message.as_str()), (ErrorCode::InvalidArgument, "subscriberId is required"));
        let no_address = NewSubscriber { subscriber_id: "s".into(), ..Default::default() }.validate().unwrap_err();
        assert_eq!(no_address.message, "deliveryAddress is required");
        assert!(NewSubscriber { subscriber_id: " ".into(), delivery_address: "x".into() }.validate().is_ok());
    }
}
