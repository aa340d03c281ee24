//! A small DevTools-protocol client for the browser test. It starts Chromium with
//! `--remote-debugging-pipe`, which reads commands on its descriptor 3 and writes answers and
//! events on descriptor 4, each message a JSON object ended by a NUL byte. So no WebSocket, TLS
//! or generated protocol crate is built for one test: the whole client is what the test calls
//! (evaluate, click, type, resize, screenshot), on one page.

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// How long a command may wait for its answer before the test fails.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// How long `click` waits for its element to appear.
const ELEMENT_TIMEOUT: Duration = Duration::from_secs(20);

/// One headless Chromium with one page, driven over the DevTools pipe. Dropping it closes the
/// browser and removes its profile.
pub struct Page {
    chromium: Child,
    profile: PathBuf,
    commands: File,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
}

impl Page {
    /// Starts `chromium` headless with a window of `width` x `height` pixels and a fresh
    /// profile in the temporary folder, opens a blank page and attaches to it. Chromium's own
    /// messages go to `log`.
    pub fn open(chromium: &Path, (width, height): (u32, u32), log: &Path) -> Page {
        let profile =
            std::env::temp_dir().join(format!("fenlens-chromium-profile-{}", std::process::id()));
        std::fs::create_dir_all(&profile).expect("Chromium's profile folder");
        let (chromium_reads, commands) = pipe();
        let (messages_from, chromium_writes) = pipe();
        let (input, output) = (chromium_reads.as_raw_fd(), chromium_writes.as_raw_fd());
        let mut command = Command::new(chromium);
        command
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--remote-debugging-pipe",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-default-apps",
                "--disable-sync",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(log).expect("chromium's log file"));
        // SAFETY: between fork and exec the closure calls only fcntl, dup2 and close, which
        // are async-signal-safe, and allocates nothing.
        unsafe {
            command.pre_exec(move || {
                // Move both ends above 10 first, so that neither already sits on 3 or 4 (dup2
                // onto itself would keep the close-on-exec flag).
                let high_input = libc::fcntl(input, libc::F_DUPFD, 10);
                let high_output = libc::fcntl(output, libc::F_DUPFD, 10);
                if high_input < 0
                    || high_output < 0
                    || libc::dup2(high_input, 3) < 0
                    || libc::dup2(high_output, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(high_input);
                libc::close(high_output);
                Ok(())
            });
        }
        let child = command.spawn().expect("start chromium");
        // Chromium holds its own copies now; the parent's must close for end of file to show.
        drop(chromium_reads);
        drop(chromium_writes);

        let (sender, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(messages_from);
            let mut message = Vec::new();
            loop {
                message.clear();
                match reader.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if message.last() == Some(&0) {
                    message.pop();
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                if sender.send(value).is_err() {
                    return;
                }
            }
        });

        let mut page = Page {
            chromium: child,
            profile,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
        };
        let target = page.send(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target = target["targetId"].clone();
        let attached = page.send(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        page.session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        page
    }

    /// The browser's profile folder, removed when the page is dropped.
    pub fn profile(&self) -> &Path {
        &self.profile
    }

    /// Sends one command, to the page's session or (`None`) to the browser, and returns its
    /// answer's `result`; events that arrive meanwhile are skipped.
    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("a command serializes");
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .unwrap_or_else(|e| panic!("sending {method} to chromium: {e}"));
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = match self.messages.recv_timeout(left) {
                Ok(answer) => answer,
                Err(RecvTimeoutError::Timeout) => panic!("chromium did not answer {method}"),
                Err(RecvTimeoutError::Disconnected) => panic!("chromium quit during {method}"),
            };
            if answer["id"].as_u64() != Some(id) {
                continue;
            }
            if let Some(error) = answer.get("error") {
                panic!("{method} failed: {error}");
            }
            return answer["result"].clone();
        }
    }

    /// Sends one command to the page and returns its answer's `result`.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(Some(&session), method, params)
    }

    /// Loads `url` in the page (without waiting for it; wait for what the test needs).
    pub fn navigate(&mut self, url: &str) {
        let result = self.call("Page.navigate", json!({ "url": url }));
        if let Some(error) = result.get("errorText") {
            panic!("opening {url}: {error}");
        }
    }

    /// Evaluates a JavaScript expression (awaiting a promise) and returns its JSON value;
    /// a thrown exception fails the test.
    pub fn evaluate(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("evaluating {expression}: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Clicks the middle of the first element `selector` matches, as a mouse does, after
    /// scrolling it into view; waits for it to be shown.
    pub fn click(&mut self, selector: &str) {
        let quoted = serde_json::to_string(selector).expect("a selector serializes");
        let centre = format!(
            "(() => {{
                const element = document.querySelector({quoted});
                if (!element) return null;
                element.scrollIntoView({{ block: 'center', inline: 'center' }});
                const r = element.getBoundingClientRect();
                if (r.width === 0 || r.height === 0) return null;
                return [r.left + r.width / 2, r.top + r.height / 2];
            }})()"
        );
        let started = Instant::now();
        let (x, y) = loop {
            if let Value::Array(point) = self.evaluate(&centre) {
                break (point[0].clone(), point[1].clone());
            }
            assert!(
                started.elapsed() < ELEMENT_TIMEOUT,
                "{selector} did not appear on the page"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    /// Types `text` into the focused element, one key press a character.
    pub fn type_text(&mut self, text: &str) {
        for character in text.chars() {
            let key = character.to_string();
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyDown", "key": key, "text": key, "unmodifiedText": key }),
            );
            self.call(
                "Input.dispatchKeyEvent",
                json!({ "type": "keyUp", "key": key }),
            );
        }
    }

    /// The page as it is shown now, as PNG bytes.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let result = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "fromSurface": true }),
        );
        let data = result["data"].as_str().expect("screenshot data");
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .expect("screenshot base64")
    }
}

/// A pipe, both ends closed on exec: (read end, write end).
fn pipe() -> (File, File) {
    let mut ends = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the array it is given, which holds two.
    let made = unsafe { libc::pipe2(ends.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(made, 0, "pipe2: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened by pipe2 and are owned by nothing else.
    unsafe {
        (
            File::from(OwnedFd::from_raw_fd(ends[0])),
            File::from(OwnedFd::from_raw_fd(ends[1])),
        )
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        // Ask politely, then insist: a browser left running would outlive the test.
        let mut bytes =
            serde_json::to_vec(&json!({ "id": 0, "method": "Browser.close" })).unwrap_or_default();
        bytes.push(0);
        let _ = self.commands.write_all(&bytes);
        let started = Instant::now();
        let mut quit = false;
        while !quit && started.elapsed() < Duration::from_secs(5) {
            quit = matches!(self.chromium.try_wait(), Ok(Some(_)));
            if !quit {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        if !quit {
            let _ = self.chromium.kill();
            let _ = self.chromium.wait();
        }
        // Only now: the browser writes its session and caches into the profile as it quits.
        if let Err(error) = std::fs::remove_dir_all(&self.profile) {
            eprintln!(
                "could not remove Chromium's profile {}: {error}",
                self.profile.display()
            );
        }
    }
}
