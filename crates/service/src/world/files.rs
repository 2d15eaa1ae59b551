//! The edge reads a project's files from the store: those of its latest successful deploy.

use crate::edge::SiteFiles;
use crate::store::{Store, deploys};

/// [`SiteFiles`] over the service's database.
pub struct StoreFiles(pub Store);

impl SiteFiles for StoreFiles {
    fn file(&self, project_id: &str, path: &str) -> Option<Vec<u8>> {
        let served = self
            .0
            .read_blocking(|conn| deploys::served_files(conn, project_id));
        match served {
            Ok(files) => files?.remove(path).map(String::into_bytes),
            Err(error) => {
                tracing::error!(%error, project_id, "the edge could not read a project's files");
                None
            }
        }
    }
}
