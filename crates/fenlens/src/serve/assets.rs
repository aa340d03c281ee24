//! The page's files, embedded in the binary: nothing is fetched from elsewhere.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use fenlens_render::pieces::{PIECES, file_name};

use super::AppState;
use super::api::not_found;

const INDEX_HTML: &str = include_str!("../../assets/index.html");
const APP_JS: &str = include_str!("../../assets/app.js");
const STYLE_CSS: &str = include_str!("../../assets/style.css");
const OPENAPI_JSON: &str = include_str!("../../assets/openapi.json");

fn text(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// `GET /`: the page.
pub async fn index() -> Response {
    text("text/html; charset=utf-8", INDEX_HTML)
}

/// `GET /app.js`.
pub async fn script() -> Response {
    text("text/javascript; charset=utf-8", APP_JS)
}

/// `GET /style.css`.
pub async fn styles() -> Response {
    text("text/css; charset=utf-8", STYLE_CSS)
}

/// `GET /api/openapi.json`: the API description.
pub async fn openapi() -> Response {
    text("application/json", OPENAPI_JSON)
}

/// `GET /pieces/wK.svg` and the like: the built-in piece drawings.
pub async fn piece(State(state): State<Arc<AppState>>, Path(name): Path<String>) -> Response {
    match PIECES
        .iter()
        .find(|piece| file_name(**piece) == name.as_str())
    {
        Some(piece) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "max-age=86400"),
            ],
            state.pieces.svg_source(*piece).to_owned(),
        )
            .into_response(),
        None => not_found().await.into_response(),
    }
}
