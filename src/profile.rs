//! The customer profile of the source documents: the partitioned map's record type.

use crate::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::layout::PartitionCount;
use crate::partition::{email_partition, EmailPartition};

/// A profile as stored: `email_address` is canonical. Missing text fields read as empty;
/// fields that are not part of the profile are dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CustomerProfile {
    pub email_address: String,
    pub full_name: String,
    pub company_name: String,
    pub customer_tier: String,
}

impl CustomerProfile {
    /// The profile with its email canonicalized, and the partition it belongs in.
    pub fn place(mut self, count: PartitionCount) -> Result<(CustomerProfile, EmailPartition)> {
        let p = email_partition(&self.email_address, count)?;
        self.email_address = p.canonical_email.clone();
        Ok((self, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn placing_canonicalizes_the_email_and_keeps_the_rest() {
        let input = CustomerProfile {
            email_address: " Alice@Example.COM ".into(),
            full_name: " Alice A. ".into(),
            company_name: "Example".into(),
            customer_tier: "GOLD".into(),
        };
        let (saved, p) = input.clone().place(PartitionCount::default()).unwrap();
        assert_eq!(saved, CustomerProfile { email_address: "alice@example.com".into(), ..input });
        assert_eq!(p.partition_name, "partition-278");
    }

    #[test]
    fn a_profile_without_email_is_refused_with_the_spec_message() {
        let e = CustomerProfile::default().place(PartitionCount::default()).unwrap_err();
        assert_eq!((e.code, e.message.as_str()), (ErrorCode::InvalidEmail, "emailAddress is required"));
    }
}
