//! API tests against a real `fenlens serve` on a loopback port: every endpoint, every limit,
//! garbage and truncated bodies, concurrent requests.

mod common;

use std::sync::{Arc, Barrier};

use common::{Server, board_png, png_bytes, request, two_boards_png};

const POSITION: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

fn placement(fen: &str) -> &str {
    fen.split(' ').next().unwrap_or_default()
}

fn assert_error(response: &common::Response, status: u16, code: &str) {
    assert_eq!(response.status, status, "{}", response.text());
    let body = response.json();
    assert_eq!(body["error"], code, "{body}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body}"
    );
}

#[test]
fn check_get_and_post_give_the_checkers_report() {
    let server = Server::start(&[]);
    let path = format!(
        "/api/check?fen={}",
        "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20KQkq%20-%200%201"
    );
    let broken = server.request("GET", &path, &[], b"").json();
    assert_eq!(broken["valid"], false);
    assert_eq!(broken["diagnostics"][0]["code"], "rank-length");
    assert_eq!(broken["diagnostics"][0]["rank"], 7);
    // The readable part of a broken FEN (the short rank from its left) is still there to draw.
    assert_eq!(
        broken["board"],
        "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR"
    );

    let json = server.request(
        "POST",
        "/api/check",
        &[("Content-Type", "application/json")],
        format!("{{\"fen\": \"{POSITION}\"}}").as_bytes(),
    );
    assert_eq!(json.status, 200);
    assert_eq!(json.json()["valid"], true);
    assert_eq!(json.json()["fen"], POSITION);

    // Plain text, with a fixable error: the rook on h1 is gone, so K is not possible.
    let text = server.request(
        "POST",
        "/api/check",
        &[("Content-Type", "text/plain")],
        b"r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1\n",
    );
    let report = text.json();
    assert_eq!(report["valid"], false);
    assert_eq!(report["fixed"], "r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1");

    // Invalid UTF-8 is still checked, not refused.
    let junk = server.request("POST", "/api/check", &[], b"\xff\xfe/8/8 w");
    assert_eq!(junk.status, 200);
    assert_eq!(junk.json()["valid"], false);
}

#[test]
fn check_rejects_requests_without_a_fen() {
    let server = Server::start(&[]);
    assert_error(
        &server.request("GET", "/api/check", &[], b""),
        400,
        "bad-request",
    );
    let json = [("Content-Type", "application/json")];
    for body in [&b"{\"fen\": 42"[..], b"{\"position\": \"8/8\"}", b"[1, 2]"] {
        let answer = server.request("POST", "/api/check", &json, body);
        assert_error(&answer, 400, "bad-request");
    }
}

#[test]
fn render_draws_svg_and_png_and_refuses_bad_input() {
    let server = Server::start(&[]);
    let svg = server.request(
        "GET",
        "/api/render?fen=8/8/8/4k3/8/8/4K3/8&flip=true",
        &[],
        b"",
    );
    assert_eq!(svg.status, 200);
    assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
    assert!(svg.text().starts_with("<svg") || svg.text().starts_with("<?xml"));

    let png = server.request(
        "GET",
        "/api/render?fen=8/8/8/4k3/8/8/4K3/8&size=256&format=png",
        &[],
        b"",
    );
    assert_eq!(png.status, 200);
    let picture = image::load_from_memory(&png.body).expect("a PNG");
    assert_eq!(picture.width(), 256);

    assert_error(
        &server.request("GET", "/api/render?fen=nonsense/8", &[], b""),
        422,
        "bad-fen",
    );
    assert_error(
        &server.request("GET", "/api/render?fen=8/8/8/8/8/8/8/8&size=9", &[], b""),
        400,
        "bad-request",
    );
    assert_error(
        &server.request(
            "GET",
            "/api/render?fen=8/8/8/8/8/8/8/8&format=gif",
            &[],
            b"",
        ),
        400,
        "bad-request",
    );
    assert_error(
        &server.request("GET", "/api/render?fen=8/8/8/8/8/8/8/8&size=-1", &[], b""),
        400,
        "bad-request",
    );
}

#[test]
fn recognize_reads_a_picture_sent_as_body_or_form() {
    let server = Server::start(&[]);
    let png = board_png(POSITION, 48);
    let answer = server.request(
        "POST",
        "/api/recognize?side=b&castling=none",
        &[("Content-Type", "image/png")],
        &png,
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = answer.json();
    assert_eq!(body["placement"], placement(POSITION));
    assert_eq!(
        body["fen"],
        format!("{} b - - 0 1", placement(POSITION)),
        "{body}"
    );
    assert_eq!(body["squares"].as_array().map(Vec::len), Some(64));
    assert_eq!(body["board"]["corners"].as_array().map(Vec::len), Some(4));

    // The same picture as a multipart form.
    let boundary = "fenlens-test-boundary";
    let mut form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"board.png\"\r\n\
         Content-Type: image/png\r\n\r\n"
    )
    .into_bytes();
    form.extend_from_slice(&png);
    form.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let answer = server.request(
        "POST",
        "/api/recognize",
        &[("Content-Type", &content_type)],
        &form,
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    assert_eq!(answer.json()["file"], "board.png");
    assert_eq!(answer.json()["placement"], placement(POSITION));
}

#[test]
fn recognize_reads_every_board_of_a_page_with_all_boards() {
    let server = Server::start(&[]);
    const SECOND: &str = "8/5pk1/6p1/8/3P4/2K5/8/8 w - - 0 1";
    let png = two_boards_png(POSITION, SECOND, 40);
    let answer = server.request(
        "POST",
        "/api/recognize?all_boards=true&side=b",
        &[("Content-Type", "image/png")],
        &png,
    );
    assert_eq!(answer.status, 200, "{}", answer.text());
    let body = answer.json();
    let boards = body["boards"].as_array().expect("a list of boards");
    assert_eq!(boards.len(), 2, "{body}");
    // In reading order, the upper board first, each with its index and the options applied.
    for (index, (board, fen)) in boards.iter().zip([POSITION, SECOND]).enumerate() {
        assert_eq!(board["board_index"], index);
        assert_eq!(board["placement"], placement(fen), "{board}");
        assert!(board["fen"].as_str().unwrap().contains(" b "), "{board}");
        assert_eq!(board["squares"].as_array().map(Vec::len), Some(64));
    }
    // Without the option: one board's object, as before.
    let one = server
        .request(
            "POST",
            "/api/recognize",
            &[("Content-Type", "image/png")],
            &png,
        )
        .json();
    assert!(one.get("boards").is_none(), "{one}");
    assert_error(
        &server.request(
            "POST",
            "/api/recognize?all_boards=maybe",
            &[("Content-Type", "image/png")],
            &png,
        ),
        400,
        "bad-request",
    );
    assert!(
        [placement(POSITION), placement(SECOND)].contains(&one["placement"].as_str().unwrap()),
        "{one}"
    );
}

#[test]
fn recognize_refuses_bad_pictures_and_options_with_4xx() {
    let server = Server::start(&[]);
    let png = board_png(POSITION, 32);
    assert_error(
        &server.request("POST", "/api/recognize", &[], b""),
        400,
        "bad-request",
    );
    assert_error(
        &server.request("POST", "/api/recognize", &[], b"this is not a picture"),
        400,
        "bad-picture",
    );
    assert_error(
        &server.request("POST", "/api/recognize", &[], &png[..png.len() / 2]),
        400,
        "bad-picture",
    );
    for options in ["side=x", "ep=z9", "castling=XYZ", "flipped=maybe"] {
        let path = format!("/api/recognize?{options}");
        assert_error(
            &server.request("POST", &path, &[], &png),
            400,
            "bad-request",
        );
    }
    // A plain grey picture has no board in it.
    let grey = png_bytes(image::DynamicImage::ImageRgb8(image::RgbImage::from_pixel(
        300,
        200,
        image::Rgb([128, 128, 128]),
    )));
    assert_error(
        &server.request("POST", "/api/recognize", &[], &grey),
        422,
        "no-board",
    );
    // A multipart form without a file.
    assert_error(
        &server.request(
            "POST",
            "/api/recognize",
            &[("Content-Type", "multipart/form-data; boundary=x")],
            b"--x\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\n\r\n--x--\r\n",
        ),
        400,
        "bad-request",
    );
}

#[test]
fn limits_body_size_and_picture_size() {
    let server = Server::start(&[]);
    let big = vec![0u8; 21 * 1024 * 1024];
    assert_error(
        &server.request("POST", "/api/recognize", &[], &big),
        413,
        "body-too-large",
    );
    assert_error(
        &server.request("POST", "/api/check", &[], &big),
        413,
        "body-too-large",
    );
    // 8000 x 6000 = 48 megapixels: small as a file, too large to decode.
    let huge = png_bytes(image::DynamicImage::ImageLuma8(image::GrayImage::new(
        8000, 6000,
    )));
    assert!(huge.len() < 20 * 1024 * 1024);
    assert_error(
        &server.request("POST", "/api/recognize", &[], &huge),
        413,
        "picture-too-large",
    );
}

#[test]
fn a_recognition_past_the_timeout_gets_503_with_retry_after() {
    let server = Server::start(&["--timeout", "0.001"]);
    let png = board_png(POSITION, 64);
    let answer = server.request("POST", "/api/recognize", &[], &png);
    assert_error(&answer, 503, "timeout");
    assert_eq!(answer.header("retry-after"), Some("1"));
}

/// Sends `clients` recognitions at once; returns the answers.
fn at_once(server: &Server, png: &Arc<Vec<u8>>, clients: usize) -> Vec<common::Response> {
    let barrier = Arc::new(Barrier::new(clients));
    let handles: Vec<_> = (0..clients)
        .map(|_| {
            let (addr, png, barrier) = (server.addr.clone(), png.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                request(&addr, "POST", "/api/recognize", &[], &png)
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

#[test]
fn concurrent_recognitions_wait_in_the_queue() {
    let server = Server::start(&["--max-recognitions", "1", "--queue", "16"]);
    let png = Arc::new(board_png(POSITION, 64));
    for answer in at_once(&server, &png, 8) {
        assert_eq!(answer.status, 200, "{}", answer.text());
        assert_eq!(answer.json()["placement"], placement(POSITION));
    }
}

#[test]
fn concurrent_recognitions_beyond_slots_and_queue_get_503() {
    let server = Server::start(&["--max-recognitions", "1", "--queue", "0"]);
    let png = Arc::new(board_png(POSITION, 96));
    let clients = 8;
    let answers = at_once(&server, &png, clients);
    let ok = answers.iter().filter(|a| a.status == 200).count();
    let busy: Vec<_> = answers.iter().filter(|a| a.status == 503).collect();
    assert_eq!(ok + busy.len(), clients, "only 200 or 503: {answers:?}");
    assert!(ok >= 1);
    assert!(!busy.is_empty(), "8 at once with one slot: some must wait");
    for answer in busy {
        assert_error(answer, 503, "busy");
        assert_eq!(answer.header("retry-after"), Some("1"));
    }
    for answer in answers.iter().filter(|a| a.status == 200) {
        assert_eq!(answer.json()["placement"], placement(POSITION));
    }
}

#[test]
fn many_concurrent_checks_all_succeed() {
    let server = Server::start(&[]);
    let handles: Vec<_> = (0..16)
        .map(|i| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                (0..20)
                    .map(|j| {
                        let fen = if (i + j) % 2 == 0 {
                            POSITION
                        } else {
                            "8/8/8 w"
                        };
                        request(&addr, "POST", "/api/check", &[], fen.as_bytes()).status
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for handle in handles {
        assert!(handle.join().unwrap().iter().all(|s| *s == 200));
    }
}

#[test]
fn page_assets_openapi_404_cors_and_logging() {
    let server = Server::start(&[]);
    let page = server.request("GET", "/", &[], b"");
    assert_eq!(page.status, 200);
    assert!(page.text().contains("<script src=\"/app.js\">"));
    for path in ["/app.js", "/style.css", "/pieces/wK.svg", "/pieces/bp.svg"] {
        let answer = server.request("GET", path, &[], b"");
        let expected = if path == "/pieces/bp.svg" { 404 } else { 200 };
        assert_eq!(answer.status, expected, "{path}");
    }
    // The page asks for nothing outside this server.
    for asset in ["/", "/app.js", "/style.css"] {
        let text = server.request("GET", asset, &[], b"").text();
        for line in text.lines() {
            let outside = line.contains("http://") || line.contains("https://");
            assert!(
                !outside || line.contains("lichess.org/analysis"),
                "{asset} refers outside: {line}"
            );
        }
    }

    let openapi = server.request("GET", "/api/openapi.json", &[], b"").json();
    assert!(openapi["openapi"].as_str().unwrap().starts_with("3."));
    for path in [
        "/api/recognize",
        "/api/check",
        "/api/render",
        "/api/openapi.json",
    ] {
        assert!(openapi["paths"][path].is_object(), "{path} not documented");
    }

    assert_error(
        &server.request("GET", "/no/such/page", &[], b""),
        404,
        "not-found",
    );
    assert_error(
        &server.request("GET", "/api/recognize", &[], b""),
        405,
        "method-not-allowed",
    );
    let origin = [("Origin", "https://example.org")];
    let no_cors = server.request("GET", "/api/check?fen=8/8", &origin, b"");
    assert_eq!(no_cors.header("access-control-allow-origin"), None);
    let with_cors = Server::start(&["--cors", "https://example.org"]);
    let answer = with_cors.request("GET", "/api/check?fen=8/8", &origin, b"");
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("https://example.org")
    );

    // One log line per request: method, path, status, time.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let log = server.log.lock().unwrap().clone();
    assert!(
        log.iter()
            .any(|l| l.starts_with("GET /no/such/page 404 ") && l.ends_with(" ms")),
        "{log:?}"
    );
}

#[test]
fn garbage_requests_never_break_the_server() {
    let server = Server::start(&[]);
    let garbage: [&[u8]; 4] = [
        b"\x00\x01\x02\x03\r\n\r\n",
        b"GET /api/check?fen=%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        b"POST /api/recognize HTTP/1.1\r\nContent-Length: 100\r\n\r\nshort",
        b"GET / HTTP/9.9\r\n\r\n",
    ];
    for bytes in garbage {
        use std::io::Write;
        if let Ok(mut stream) = std::net::TcpStream::connect(&server.addr) {
            let _ = stream.write_all(bytes);
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut sink = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stream, &mut sink);
            let text = String::from_utf8_lossy(&sink);
            assert!(!text.contains(" 500 "), "{text}");
        }
    }
    // Still answering.
    let answer = server.request("GET", "/api/check?fen=8/8/8/8/8/8/8/8", &[], b"");
    assert_eq!(answer.status, 200);
}
