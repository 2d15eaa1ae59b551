//! Projects of the signed-in account.

use domain_desk_api::Project;
use tauri::State;

use crate::Result;
use crate::state::AppState;

#[tauri::command]
#[tracing::instrument(skip_all, err(Debug))]
pub async fn projects_list(state: State<'_, AppState>) -> Result<Vec<Project>> {
    Ok(state.session().await?.client.projects().await?)
}

#[tauri::command]
#[tracing::instrument(skip(state), err(Debug))]
pub async fn project_get(state: State<'_, AppState>, project_id: String) -> Result<Project> {
    Ok(state.session().await?.client.project(&project_id).await?)
}
