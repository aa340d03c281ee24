//! Shared by the end-to-end tests: running the real binary, a fresh temporary folder, and for
//! the server tests a real `fenlens serve` on a loopback port with a plain HTTP/1.1 client that
//! can also send broken requests.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Runs the `fenlens` binary with `args` and waits for it.
pub fn fenlens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fenlens"))
        .args(args)
        .output()
        .expect("run fenlens")
}

/// An empty folder of its own for one test (`name` and the process id).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fenlens-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A running server; killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// Lines the server printed on stderr.
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Server {
    /// Starts `fenlens serve --addr 127.0.0.1:0` with extra arguments and waits for its address.
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_fenlens"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fenlens serve");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let first = lines
            .next()
            .expect("the server prints its address")
            .expect("readable stderr");
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_owned();
        let log = Arc::new(Mutex::new(vec![first]));
        let sink = log.clone();
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Server { child, addr, log }
    }

    /// The server's address as a URL prefix.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Sends one request and reads the whole answer.
    pub fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        request(&self.addr, method, path, headers, body)
    }

    /// The server process's resident memory in KiB (Linux).
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// A header's value (names compared without case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "status {}: body is not JSON ({e}): {:?}",
                self.status,
                String::from_utf8_lossy(&self.body)
            )
        })
    }

    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Sends one HTTP/1.1 request with `Connection: close`.
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(120)))
        .expect("timeout");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).expect("send head");
    // The server may answer (413) before the whole body is sent; a broken pipe is fine then.
    let _ = stream.write_all(body);
    read_response(stream)
}

fn read_response(stream: TcpStream) -> Response {
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).expect("status line");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).expect("header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let chunked = headers
        .iter()
        .any(|(n, v)| n.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("chunk size");
            let size = usize::from_str_radix(size.trim(), 16).expect("hex chunk size");
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        let _ = reader.read_to_end(&mut body);
    }
    Response {
        status,
        headers,
        body,
    }
}

/// A rendered board as PNG bytes (built-in pieces, brown theme, a dark margin around it).
pub fn board_png(fen: &str, square: u32) -> Vec<u8> {
    // A margin around the board, as in a screenshot.
    let rgba = board_rgba(fen, square);
    let (w, h) = rgba.dimensions();
    let mut canvas = image::RgbaImage::from_pixel(w + 40, h + 40, image::Rgba([40, 40, 40, 255]));
    image::imageops::overlay(&mut canvas, &rgba, 20, 20);
    png_bytes(image::DynamicImage::ImageRgba8(canvas))
}

/// A FEN's board drawn in the built-in design and the default style, `square` pixels a square.
fn board_rgba(fen: &str, square: u32) -> image::RgbaImage {
    let board = fenlens_fen::read(fen.as_bytes())
        .setup
        .expect("a readable FEN")
        .board;
    let style = fenlens_render::BoardStyle::default();
    let drawn =
        fenlens_render::draw_board(&board, &style, &fenlens_render::PieceSet::builtin(), square);
    fenlens_render::draw::pixmap_to_rgba(&drawn.pixmap)
}

/// Two boards drawn with [`board_png`]'s style, `first` above `second` on a light page, as
/// PNG: a page with two diagrams.
pub fn two_boards_png(first: &str, second: &str, square: u32) -> Vec<u8> {
    let (top, bottom) = (board_rgba(first, square), board_rgba(second, square));
    let margin = square * 2;
    let width = top.width().max(bottom.width()) + 2 * margin;
    let height = top.height() + bottom.height() + 3 * margin;
    let mut page = image::RgbaImage::from_pixel(width, height, image::Rgba([245, 242, 235, 255]));
    image::imageops::overlay(&mut page, &top, i64::from(margin), i64::from(margin));
    image::imageops::overlay(
        &mut page,
        &bottom,
        i64::from(margin),
        i64::from(2 * margin + top.height()),
    );
    png_bytes(image::DynamicImage::ImageRgba8(page))
}

/// A picture encoded as PNG.
pub fn png_bytes(picture: image::DynamicImage) -> Vec<u8> {
    let mut bytes = Vec::new();
    picture
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .expect("encode png");
    bytes
}
