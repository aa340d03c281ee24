//! The API handlers: recognize, check, render. Every failure a user can cause is a 4xx with
//! `{error, message}`; only a broken model or a crashed worker gives a 500.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{FromRequest, Multipart, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fenlens_fen::{CheckOptions, check, fix};
use fenlens_render::style::BoardStyle;
use fenlens_render::{PieceSet, draw_board, svg};
use fenlens_vision::{Flipped, VisionError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use crate::recognize_cmd::{
    FlippedArg, Side, all_boards_json, parse_options, read_boards, recognition_json,
};

/// An API failure: status plus `{error, message}`.
pub struct ApiError {
    status: StatusCode,
    error: &'static str,
    message: String,
    retry_after: Option<u64>,
}

impl ApiError {
    fn new(status: StatusCode, error: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            error,
            message: message.into(),
            retry_after: None,
        }
    }

    fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad-request", message)
    }

    fn busy(error: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            retry_after: Some(1),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, error, message)
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(json!({"error": self.error, "message": self.message}));
        let mut response = (self.status, body).into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> ApiError {
        ApiError::bad_request(rejection.body_text())
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> ApiError {
        body_error(rejection.status(), rejection.body_text())
    }
}

fn body_error(status: StatusCode, text: String) -> ApiError {
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::new(
            status,
            "body-too-large",
            format!(
                "the request body is larger than {} MB",
                super::MAX_BODY_BYTES / (1024 * 1024)
            ),
        )
    } else {
        ApiError::new(status, "bad-body", text)
    }
}

impl From<VisionError> for ApiError {
    fn from(error: VisionError) -> ApiError {
        let message = error.to_string();
        match error {
            VisionError::Decode(_) => {
                ApiError::new(StatusCode::BAD_REQUEST, "bad-picture", message)
            }
            VisionError::TooLarge(_) => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "picture-too-large", message)
            }
            VisionError::NoBoard => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "no-board", message)
            }
            VisionError::Model(_) | VisionError::NoModel => {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "model", message)
            }
        }
    }
}

/// Anything else: 404.
pub async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not-found",
        "no such page; the API is described at /api/openapi.json",
    )
}

/// A known path with the wrong method: 405.
pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "this path does not take that method; see /api/openapi.json",
    )
}

/// One request counted in the waiting queue while this lives.
struct Waiting<'a> {
    count: &'a AtomicUsize,
    /// Requests that were already waiting.
    ahead: usize,
}

impl<'a> Waiting<'a> {
    fn enter(count: &'a AtomicUsize) -> Waiting<'a> {
        let ahead = count.fetch_add(1, Ordering::SeqCst);
        Waiting { count, ahead }
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Options of `POST /api/recognize`, named like the CLI's.
#[derive(Deserialize, Default)]
pub struct RecognizeQuery {
    side: Option<Side>,
    castling: Option<String>,
    ep: Option<String>,
    flipped: Option<FlippedArg>,
    /// Every board of the picture (`fenlens recognize --all-boards`), answered as
    /// `{file, boards: [...]}`.
    #[serde(default)]
    all_boards: bool,
}

/// The picture of a request: its body, or the first file of a multipart form.
async fn picture(request: Request, state: &Arc<AppState>) -> Result<(String, Bytes), ApiError> {
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    let (name, bytes) = if multipart {
        let mut form = Multipart::from_request(request, state)
            .await
            .map_err(|r| body_error(r.status(), r.body_text()))?;
        let mut found = None;
        while let Some(field) = form
            .next_field()
            .await
            .map_err(|e| body_error(e.status(), e.body_text()))?
        {
            let name = field.file_name().unwrap_or("upload").to_owned();
            let bytes = field
                .bytes()
                .await
                .map_err(|e| body_error(e.status(), e.body_text()))?;
            if !bytes.is_empty() {
                found = Some((name, bytes));
                break;
            }
        }
        found.ok_or_else(|| ApiError::bad_request("the form has no file in it"))?
    } else {
        (
            "upload".to_owned(),
            Bytes::from_request(request, state).await?,
        )
    };
    if bytes.is_empty() {
        return Err(ApiError::bad_request(
            "send the picture as the request body, or as a file in a multipart form",
        ));
    }
    Ok((name, bytes))
}

/// `POST /api/recognize`: a picture in, the same object as `fenlens recognize --json` out; with
/// `all_boards=true`, `{file, boards}` holding every board's object (with its `board_index`) in
/// reading order, as `fenlens recognize --all-boards --json` prints them.
pub async fn recognize(
    State(state): State<Arc<AppState>>,
    query: Result<Query<RecognizeQuery>, QueryRejection>,
    request: Request,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query?;
    let options = parse_options(
        matches!(query.side, Some(Side::B)),
        query.castling.as_deref().unwrap_or("auto"),
        query.ep.as_deref(),
        query.flipped.map_or(Flipped::Auto, Flipped::from),
    )
    .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let all_boards = query.all_boards;
    // Read the upload before taking a slot: a slow client must not hold the CPU's turn.
    let (name, bytes) = picture(request, &state).await?;
    let busy = || {
        ApiError::busy(
            "busy",
            "all recognition slots are taken and the queue is full; try again in a second",
        )
    };
    let permit = match state.recognitions.clone().try_acquire_owned() {
        Ok(permit) => permit,
        Err(_) => {
            // Wait in a bounded queue, no longer than the request's time limit. The count goes
            // down however the wait ends, a client that hangs up included.
            let waiting = Waiting::enter(&state.waiting);
            if waiting.ahead >= state.queue {
                return Err(busy());
            }
            let waited =
                tokio::time::timeout(state.timeout, state.recognitions.clone().acquire_owned())
                    .await;
            drop(waiting);
            match waited {
                Ok(Ok(permit)) => permit,
                _ => return Err(busy()),
            }
        }
    };
    let worker = state.clone();
    // The permit moves into the worker: a slot frees only when the work really ends.
    let task = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        let image = fenlens_vision::decode::decode(&bytes)?;
        read_boards(&worker.recognizer, &image, &options, all_boards)
    });
    let recognition = match tokio::time::timeout(state.timeout, task).await {
        Err(_) => {
            return Err(ApiError::busy(
                "timeout",
                format!(
                    "the picture took longer than {:.1} s",
                    state.timeout.as_secs_f64()
                ),
            ));
        }
        Ok(Err(_)) => {
            return Err(ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "the recognition worker stopped",
            ));
        }
        Ok(Ok(result)) => result?,
    };
    Ok(Json(match recognition.as_slice() {
        [one] if !all_boards => recognition_json(&name, one),
        boards => json!({ "file": name, "boards": all_boards_json(&name, boards) }),
    }))
}

/// Options of the check endpoints.
#[derive(Deserialize, Default)]
pub struct CheckQuery {
    fen: Option<String>,
    #[serde(default)]
    chess960: bool,
}

fn check_json(fen: &str, chess960: bool) -> Value {
    let options = CheckOptions {
        chess960,
        ..CheckOptions::default()
    };
    let report = check(fen.as_bytes(), &options);
    let fixed = if report.is_valid() {
        None
    } else {
        fix(fen.as_bytes(), &options).ok()
    };
    let mut value = serde_json::to_value(&report).unwrap_or_else(|_| json!({}));
    if let Some(object) = value.as_object_mut() {
        object.insert("fixed".into(), json!(fixed));
    }
    value
}

/// `GET /api/check?fen=...`: the checker's JSON.
pub async fn check_get(
    query: Result<Query<CheckQuery>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query?;
    let fen = query
        .fen
        .ok_or_else(|| ApiError::bad_request("give the FEN as ?fen=..."))?;
    Ok(Json(check_json(&fen, query.chess960)))
}

/// `POST /api/check`: a JSON body `{"fen": ..., "chess960": false}` or the FEN as plain text.
pub async fn check_post(
    headers: HeaderMap,
    query: Result<Query<CheckQuery>, QueryRejection>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query?;
    let body = body?;
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        let request: CheckQuery = serde_json::from_slice(&body)
            .map_err(|e| ApiError::bad_request(format!("the JSON body is not valid: {e}")))?;
        let fen = request.fen.ok_or_else(|| {
            ApiError::bad_request("the JSON body needs a \"fen\" field holding a string")
        })?;
        return Ok(Json(check_json(&fen, request.chess960 || query.chess960)));
    }
    // Plain text: the checker itself copes with any bytes, invalid UTF-8 included.
    let text = String::from_utf8_lossy(&body);
    Ok(Json(check_json(text.trim(), query.chess960)))
}

/// Options of `GET /api/render`.
#[derive(Deserialize)]
pub struct RenderQuery {
    fen: Option<String>,
    #[serde(default)]
    flip: bool,
    size: Option<u32>,
    format: Option<String>,
}

/// `GET /api/render?fen=&flip=&size=&format=svg|png`: the board as a picture.
pub async fn render(
    State(state): State<Arc<AppState>>,
    query: Result<Query<RenderQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query?;
    let fen = query
        .fen
        .ok_or_else(|| ApiError::bad_request("give the position as ?fen=..."))?;
    let size = query.size.unwrap_or(400);
    if !(64..=2048).contains(&size) {
        return Err(ApiError::bad_request(
            "size must be between 64 and 2048 pixels",
        ));
    }
    let reading = fenlens_fen::read(fen.as_bytes());
    let Some(setup) = reading.setup else {
        let first = reading
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(|d| d.message.clone())
            .unwrap_or_else(|| "the FEN cannot be read".into());
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "bad-fen",
            first,
        ));
    };
    let style = BoardStyle {
        flipped: query.flip,
        ..BoardStyle::default()
    };
    let pieces: &PieceSet = &state.pieces;
    match query.format.as_deref().unwrap_or("svg") {
        "svg" => {
            let text = svg::board_svg(&setup.board, &style, pieces, size / 8).map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "render", e.to_string())
            })?;
            Ok(([(header::CONTENT_TYPE, "image/svg+xml")], text).into_response())
        }
        "png" => {
            let drawn = draw_board(&setup.board, &style, pieces, size / 8);
            let png = drawn.pixmap.encode_png().map_err(|e| {
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "render", e.to_string())
            })?;
            Ok(([(header::CONTENT_TYPE, "image/png")], png).into_response())
        }
        other => Err(ApiError::bad_request(format!(
            "format must be svg or png, not {other:?}"
        ))),
    }
}
