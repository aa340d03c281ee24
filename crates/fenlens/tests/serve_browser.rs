//! Browser tests: the page in a real headless Chromium (Debian's `chromium`, installed by
//! `scripts/setup-tests`), driven over the DevTools protocol (`cdp`, over a pipe). Each step
//! saves a screenshot under `target/tmp/browser/` to look at, and Chromium's own messages go
//! to `target/tmp/browser/chromium.log`.

mod cdp;
mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::Engine;
use cdp::Page;
use common::{Server, board_png, two_boards_png};
use fenlens_fen::shakmaty::{Piece, Square};
use serde_json::json;

const POSITION: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

fn chromium() -> PathBuf {
    let path = std::env::var_os("FENLENS_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    assert!(
        path.is_file(),
        "{} is missing: run scripts/setup-tests (it installs Debian's chromium), \
         or set FENLENS_CHROMIUM",
        path.display()
    );
    path
}

fn artefact_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).expect("artefact folder");
    dir
}

fn screenshot(tab: &mut Page, name: &str) {
    let png = tab.screenshot();
    let path = artefact_dir().join(format!("{name}.png"));
    std::fs::write(&path, png).expect("write screenshot");
    eprintln!("screenshot: {}", path.display());
}

/// Waits until a JavaScript expression is true.
fn wait_for(tab: &mut Page, expression: &str, what: &str) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if tab.evaluate(expression) == serde_json::Value::Bool(true) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    screenshot(tab, "timeout");
    panic!("timed out waiting for {what} ({expression})");
}

fn fen_value(tab: &mut Page) -> String {
    tab.evaluate("document.getElementById('fen').value")
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn type_fen(tab: &mut Page, fen: &str) {
    tab.click("#fen");
    tab.evaluate("document.getElementById('fen').select()");
    tab.type_text(fen);
}

#[test]
fn the_page_checks_fixes_reads_corrects_and_copies() {
    let server = Server::start(&[]);
    let mut page = Page::open(
        &chromium(),
        (1100, 1300),
        &artefact_dir().join("chromium.log"),
    );
    let tab = &mut page;
    tab.navigate(&server.url("/"));
    wait_for(
        tab,
        "document.querySelectorAll('#board .sq').length === 64 && \
         document.querySelector('[data-square=e1]').dataset.piece === 'K'",
        "the start position",
    );

    // 1. A FEN with a broken rank: the diagnosis appears, the readable part stays on the board.
    type_fen(
        tab,
        "rnbqkbnr/ppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    );
    wait_for(
        tab,
        "!!document.querySelector('#diagnostics li[data-code=rank-length]')",
        "the broken-rank diagnosis",
    );
    let message = tab
        .evaluate("document.querySelector('#diagnostics li[data-code=rank-length]').textContent");
    assert!(message.as_str().unwrap().contains("Rank 7"), "{message}");
    assert_eq!(
        tab.evaluate("document.querySelectorAll('#board .sq.broken').length"),
        8
    );
    assert_eq!(
        tab.evaluate("document.querySelector('[data-square=e4]').dataset.piece"),
        "P"
    );
    assert_eq!(
        tab.evaluate("document.querySelector('[data-square=a8]').dataset.piece"),
        "r"
    );
    screenshot(tab, "1-broken-rank");

    // 2. A fixable error: castling rights without the rook; the fix button repairs the FEN.
    type_fen(tab, "r3k2r/8/8/8/8/8/8/R3K3 w KQkq - 0 1");
    wait_for(
        tab,
        "!!document.querySelector('#diagnostics button.fix')",
        "a fix button",
    );
    screenshot(tab, "2a-fixable");
    tab.click("#diagnostics button.fix");
    wait_for(
        tab,
        "document.getElementById('fen').value === 'r3k2r/8/8/8/8/8/8/R3K3 w Qkq - 0 1' && \
         !!document.querySelector('#diagnostics li.ok')",
        "the fixed FEN, checked clean",
    );
    // Castling K is no longer possible, so its box is disabled.
    assert_eq!(
        tab.evaluate("document.getElementById('castle-K').disabled"),
        true
    );
    screenshot(tab, "2b-fixed");

    // 3. Drop a rendered picture: the page shows it with the grid and reads the right FEN.
    drop_picture(tab, &board_png(POSITION, 56));
    let placement = POSITION.split(' ').next().unwrap();
    wait_for(
        tab,
        &format!(
            "document.getElementById('fen').value.startsWith('{placement} ') && \
             document.getElementById('progress').hidden"
        ),
        "the recognized FEN",
    );
    assert_eq!(
        tab.evaluate(
            "!document.getElementById('picture-figure').hidden && \
             document.getElementById('picture-canvas').width > 0"
        ),
        true
    );
    screenshot(tab, "3-dropped-picture");

    // 4. Correct one square: click e4, pick a white queen.
    tab.click("[data-square=e4]");
    wait_for(
        tab,
        "!document.getElementById('palette').hidden",
        "the palette",
    );
    screenshot(tab, "4a-palette");
    // The board shows the queen at once, before the server's check of the new FEN answers:
    // e4 is read in the same task as the click, before any answer can arrive.
    let shown = tab.evaluate(
        "(() => { document.querySelector('#palette button[data-piece=Q]').click(); \
                  return document.querySelector('[data-square=e4]').dataset.piece; })()",
    );
    assert_eq!(shown, "Q", "the board waited for the server's check");
    let expected = with_piece(placement, Square::E4, 'Q');
    wait_for(
        tab,
        &format!("document.getElementById('fen').value.startsWith('{expected} ')"),
        "the corrected FEN",
    );
    // ... and still shows it once the check has answered and the board is drawn again.
    wait_for(
        tab,
        &format!("document.getElementById('lichess').href.includes('{expected}_')"),
        "the check of the corrected FEN",
    );
    assert_eq!(
        tab.evaluate("document.querySelector('[data-square=e4]').dataset.piece"),
        "Q"
    );
    screenshot(tab, "4b-corrected");

    // 4c. By keyboard: a letter on the square in focus puts that piece there, and the focus
    // stays on the board when the check's answer draws it again, so an arrow moves it on.
    tab.click("[data-square=d4]");
    tab.type_text("n");
    let keyed = with_piece(&expected, Square::D4, 'n');
    wait_for(
        tab,
        &format!("document.getElementById('lichess').href.includes('{keyed}_')"),
        "the check of the FEN corrected by keyboard",
    );
    assert_eq!(
        tab.evaluate("document.activeElement.dataset.square ?? document.activeElement.tagName"),
        "d4",
        "the focus left the board when it was drawn again"
    );
    for kind in ["rawKeyDown", "keyUp"] {
        tab.call(
            "Input.dispatchKeyEvent",
            json!({ "type": kind, "key": "ArrowUp", "code": "ArrowUp", "windowsVirtualKeyCode": 38 }),
        );
    }
    assert_eq!(
        tab.evaluate("document.activeElement.dataset.square ?? document.activeElement.tagName"),
        "d5"
    );
    screenshot(tab, "4c-corrected-by-keyboard");

    // 5. Copy: the button hands the FEN to the clipboard API.
    tab.evaluate("navigator.clipboard.writeText = (text) => { window.copied = text; return Promise.resolve(); }; true",
    );
    tab.click("#copy");
    wait_for(tab, "typeof window.copied === 'string'", "the copy");
    let copied = tab.evaluate("window.copied");
    assert_eq!(copied.as_str(), Some(fen_value(tab).as_str()));
    assert!(copied.as_str().unwrap().starts_with(&keyed));
    let status = tab.evaluate("document.getElementById('status').textContent");
    assert!(status.as_str().unwrap().starts_with("Copied: "), "{status}");
    screenshot(tab, "5-copied");

    // 5b. A page with two diagrams, every board asked for: the first board is read, a button
    // per board; the second button reads the second board, a click on the first grid in the
    // picture the first again.
    const SECOND: &str = "8/5pk1/6p1/8/3P4/2K5/8/8 w - - 0 1";
    let two_diagrams = two_boards_png(POSITION, SECOND, 40);
    let (page_width, page_height) = {
        let decoded = image::load_from_memory(&two_diagrams).expect("the page decodes");
        (decoded.width(), decoded.height())
    };
    tab.click("#all-boards");
    drop_picture(tab, &two_diagrams);
    let first = POSITION.split(' ').next().unwrap();
    let second = SECOND.split(' ').next().unwrap();
    wait_for(
        tab,
        &format!(
            "document.getElementById('fen').value.startsWith('{first} ') && \
             document.getElementById('progress').hidden && \
             document.querySelectorAll('#board-choice button').length === 2"
        ),
        "the first of two boards",
    );
    // The picture shown is the page, not the one before it, re-read when the box was ticked
    // (whose bitmap, decoded last, once replaced the page's).
    assert_eq!(
        tab.evaluate(&format!(
            "document.getElementById('picture-canvas').width === {page_width} && \
                 document.getElementById('picture-canvas').height === {page_height}"
        )),
        true,
        "the picture shown is not the page dropped"
    );
    screenshot(tab, "5b-two-boards");
    tab.click("#board-choice button[data-board='1']");
    wait_for(
        tab,
        &format!(
            "document.getElementById('fen').value.startsWith('{second} ') && \
             document.querySelector('#board-choice button[data-board=\"1\"]')\
               .getAttribute('aria-pressed') === 'true'"
        ),
        "the second board",
    );
    screenshot(tab, "5c-second-board");
    // A correction on the second board: a white rook on a1.
    tab.click("[data-square=a1]");
    wait_for(
        tab,
        "!document.getElementById('palette').hidden",
        "the palette",
    );
    tab.click("#palette button[data-piece=R]");
    let corrected = with_piece(second, Square::A1, 'R');
    wait_for(
        tab,
        &format!("document.getElementById('fen').value.startsWith('{corrected} ')"),
        "the second board corrected",
    );
    // The pick was made by mouse, on a palette button the palette then hides: the keyboard's
    // focus goes back to the square corrected, and stays there once the check has answered.
    wait_for(
        tab,
        &format!("document.getElementById('lichess').href.includes('{corrected}_')"),
        "the check of the second board's correction",
    );
    assert_eq!(
        tab.evaluate("document.activeElement.dataset.square ?? document.activeElement.tagName"),
        "a1",
        "the focus left the board with the palette"
    );
    // The middle of the upper board: 80 pixels of margin, then half of the board, which takes
    // half of what the margins (240 pixels) leave.
    let (x, y) = (
        0.5,
        (80.0 + (page_height - 240) as f64 / 4.0) / page_height as f64,
    );
    tab.evaluate(&format!(
            "(() => {{
                const canvas = document.getElementById('picture-canvas');
                const r = canvas.getBoundingClientRect();
                canvas.dispatchEvent(new MouseEvent('click', {{
                    clientX: r.left + r.width * {x}, clientY: r.top + r.height * {y}, bubbles: true }}));
                return true;
            }})()"
        ),
    );
    wait_for(
        tab,
        &format!("document.getElementById('fen').value.startsWith('{first} ')"),
        "the first board again, chosen in the picture",
    );
    // Back to the second board: it shows the correction, not its reading again.
    tab.click("#board-choice button[data-board='1']");
    wait_for(
        tab,
        &format!(
            "document.getElementById('fen').value.startsWith('{corrected} ') && \
             document.querySelector('[data-square=a1]').dataset.piece === 'R'"
        ),
        "the second board as corrected",
    );
    screenshot(tab, "5d-correction-kept");
    // And the first board, never corrected, is read as before.
    tab.click("#board-choice button[data-board='0']");
    wait_for(
        tab,
        &format!("document.getElementById('fen').value.startsWith('{first} ')"),
        "the first board as read",
    );

    // 6. A phone-sized screen in dark colours: nothing spills sideways, the board still fits.
    tab.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 390, "height": 844, "deviceScaleFactor": 2.0, "mobile": true }),
    );
    tab.call(
        "Emulation.setEmulatedMedia",
        json!({ "features": [{ "name": "prefers-color-scheme", "value": "dark" }] }),
    );
    wait_for(tab, "window.innerWidth === 390", "the phone-sized viewport");
    assert_eq!(
        tab.evaluate(
            "document.documentElement.scrollWidth <= window.innerWidth && \
             document.getElementById('board').getBoundingClientRect().right <= window.innerWidth"
        ),
        true,
        "the page is wider than a phone's screen"
    );
    assert_eq!(
        tab.evaluate("getComputedStyle(document.body).backgroundColor !== 'rgb(250, 250, 247)'"),
        true,
        "dark colours not applied"
    );
    screenshot(tab, "6-phone-dark");

    // The browser quits and its profile goes with it (each run left one behind while a
    // picture above was also named `page`, so that this dropped the picture instead).
    let profile = page.profile().to_owned();
    drop(page);
    assert!(
        !profile.exists(),
        "Chromium's profile {} was left behind",
        profile.display()
    );
}

/// `placement` with `piece` (a FEN letter) put on `square`: what a correction on the page gives.
fn with_piece(placement: &str, square: Square, piece: char) -> String {
    let mut board = fenlens_fen::read(placement.as_bytes())
        .setup
        .expect("a readable placement")
        .board;
    board.set_piece_at(square, Piece::from_char(piece).expect("a piece letter"));
    board.board_fen().to_string()
}

/// Drops a PNG picture on the page, as a user dragging a file does.
fn drop_picture(tab: &mut Page, png: &[u8]) {
    let picture = base64::engine::general_purpose::STANDARD.encode(png);
    tab.evaluate(&format!(
            "(() => {{
                const bytes = Uint8Array.from(atob('{picture}'), c => c.charCodeAt(0));
                const file = new File([bytes], 'board.png', {{ type: 'image/png' }});
                const data = new DataTransfer();
                data.items.add(file);
                document.body.dispatchEvent(new DragEvent('dragover', {{ dataTransfer: data, bubbles: true, cancelable: true }}));
                document.body.dispatchEvent(new DragEvent('drop', {{ dataTransfer: data, bubbles: true, cancelable: true }}));
                return true;
            }})()"
        ),
    );
}
