//! Exporting a project's domains, as both front ends run it: the window's Export… (the
//! system's save dialog, `src-tauri/commands/bulk.rs`) and `domain-desk domains export`
//! (a file or standard output, `src-tauri/cli/bulk.rs`). The domains are read through the
//! key's paced queue and written in the format asked for, labelled with the project's name and
//! id; the front end only decides where the text goes.

use chrono::NaiveDate;
use domain_desk_api::Project;
use domain_desk_bulk::ExportFormat;
use domain_desk_client::Client;

use crate::{Error, Result};

/// A project's domains written out in one format.
#[derive(Debug, Clone)]
pub struct ProjectExport {
    pub text: String,
    pub format: ExportFormat,
    project_name: String,
}

/// Every domain of `project` in `format` (csv, json, zone).
pub async fn export(
    client: &Client,
    project: &Project,
    format: ExportFormat,
) -> Result<ProjectExport> {
    let domains = client.domains(&project.id).await?;
    let label = format!("{} ({})", project.name, project.id);
    let text = domain_desk_bulk::export(&domains, format, &label)
        .map_err(|err| Error::InvalidInput(err.to_string()))?;
    Ok(ProjectExport {
        text,
        format,
        project_name: project.name.clone(),
    })
}

impl ProjectExport {
    /// The file name a save dialog suggests: the project's name and the day, never its id
    /// (`Pro site` on 26 Nov 2026 → `pro-site-domains-2026-11-26.csv`).
    pub fn suggested_name(&self, day: NaiveDate) -> String {
        let extension = match self.format {
            ExportFormat::Csv => "csv",
            ExportFormat::Json => "json",
            ExportFormat::Zone => "zone",
        };
        file_name(&self.project_name, day, extension)
    }
}

fn file_name(project_name: &str, day: NaiveDate, extension: &str) -> String {
    let mut slug = String::new();
    for c in project_name.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let stem = if slug.is_empty() {
        "domains".to_owned()
    } else {
        format!("{slug}-domains")
    };
    format!("{stem}-{}.{extension}", day.format("%Y-%m-%d"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_is_named_after_the_project_and_the_day() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 26).unwrap();
        assert_eq!(
            file_name("Pro site", day, "csv"),
            "pro-site-domains-2026-11-26.csv"
        );
        assert_eq!(
            file_name("  Shop / Café ", day, "zone"),
            "shop-café-domains-2026-11-26.zone"
        );
        assert_eq!(file_name("///", day, "json"), "domains-2026-11-26.json");
    }
}
