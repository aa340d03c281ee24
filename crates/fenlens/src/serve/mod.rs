//! `fenlens serve`: the browser page and the HTTP API behind it.
//!
//! One axum router serves the page (HTML, script, styles and piece drawings, all embedded in the
//! binary, so it works offline) and the API (`/api/recognize`, `/api/check`, `/api/render`,
//! `/api/openapi.json`). Recognition runs on blocking threads, at most `--max-recognitions` at a
//! time; up to `--queue` more wait for a slot, and beyond that they get 503 with `Retry-After`. Every request is logged on one line to stderr.

mod api;
mod assets;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::Router;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use clap::Args;
use fenlens_render::PieceSet;
use fenlens_vision::Recognizer;
use tokio::sync::Semaphore;
use tower_http::cors::CorsLayer;

/// Largest request body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 20 * 1024 * 1024;

/// Arguments of `fenlens serve`.
#[derive(Args, Debug)]
#[command(
    after_help = "Open the printed address in a browser: paste or type a FEN, or drop, paste \
(Ctrl+V) or choose a picture; correct squares by clicking them.\n\n\
The API is described at /api/openapi.json and in the README.\n\n\
Examples:\n  \
    fenlens serve\n  \
    fenlens serve --addr 0.0.0.0:9000 --cors https://example.org"
)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0 picks a free port; the address is printed).
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,

    /// Allow pages from this origin to call the API (no CORS headers otherwise).
    #[arg(long, value_name = "ORIGIN")]
    cors: Option<String>,

    /// Recognitions running at once (default: the number of CPU cores).
    #[arg(long, value_name = "N")]
    max_recognitions: Option<usize>,

    /// Recognition requests that may wait for a free slot; beyond that they get 503 with
    /// Retry-After.
    #[arg(long, default_value_t = 64, value_name = "N")]
    queue: usize,

    /// Seconds a recognition may take before the request gets 503 (fractions allowed).
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    timeout: f64,
}

/// What every handler shares.
pub struct AppState {
    /// The loaded recognizer.
    pub recognizer: Recognizer,
    /// Free recognition slots.
    pub recognitions: Arc<Semaphore>,
    /// Requests waiting for a slot now.
    pub waiting: AtomicUsize,
    /// Most requests allowed to wait.
    pub queue: usize,
    /// The piece drawings for `/api/render` and the page.
    pub pieces: PieceSet,
    /// Per-request time limit.
    pub timeout: Duration,
}

/// The whole application: page, assets and API.
pub fn router(state: Arc<AppState>, cors: Option<HeaderValue>) -> Router {
    let api = Router::new()
        .route("/api/recognize", post(api::recognize))
        .route("/api/check", get(api::check_get).post(api::check_post))
        .route("/api/render", get(api::render))
        .route("/api/openapi.json", get(assets::openapi))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES));
    let mut app = Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::styles))
        .route("/pieces/{name}", get(assets::piece))
        .merge(api)
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .with_state(state);
    if let Some(origin) = cors {
        app = app.layer(
            CorsLayer::new()
                .allow_origin(origin)
                .allow_methods([Method::GET, Method::POST])
                .allow_headers([header::CONTENT_TYPE]),
        );
    }
    app.layer(middleware::from_fn(log_request))
}

/// Logs one line per request: method, path, status, time.
async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let started = Instant::now();
    let response = next.run(request).await;
    eprintln!(
        "{method} {path} {} {:.1} ms",
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// Runs `fenlens serve` until Ctrl+C.
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let cors = args
        .cors
        .as_deref()
        .map(|origin| {
            HeaderValue::from_str(origin)
                .map_err(|_| anyhow::anyhow!("--cors must be an origin like https://example.org"))
        })
        .transpose()?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let state = Arc::new(AppState {
        recognizer: Recognizer::new()?,
        recognitions: Arc::new(Semaphore::new(
            args.max_recognitions.unwrap_or(cores).max(1),
        )),
        waiting: AtomicUsize::new(0),
        queue: args.queue,
        pieces: PieceSet::builtin(),
        timeout: Duration::try_from_secs_f64(args.timeout)
            .ok()
            .filter(|t| !t.is_zero())
            .ok_or_else(|| anyhow::anyhow!("--timeout must be a positive number of seconds"))?,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let local = listener.local_addr()?;
        eprintln!("fenlens: serving on http://{local}/ (Ctrl+C stops)");
        axum::serve(listener, router(state, cors))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("serving")?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
