//! End-to-end tests of `fenlens check`, running the real binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn fenlens(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fenlens"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fenlens");
    let mut input = child.stdin.take().expect("stdin");
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The child may exit before reading everything (usage errors); ignore broken pipes.
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("wait for fenlens");
    writer.join().expect("stdin writer");
    output
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn valid_fen_prints_board_and_exits_0() {
    let out = fenlens(&["check", START], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with(START), "{text}");
    // Rank 8 on top with coordinates, rank 1 below, files underneath.
    let rank8 = text.find("8  r n b q k b n r").expect("rank 8 row");
    let rank1 = text.find("1  R N B Q K B N R").expect("rank 1 row");
    assert!(rank8 < rank1);
    assert!(text.contains("a b c d e f g h"));
    assert!(text.contains("valid: 0 errors"));
    assert!(!text.contains('\x1b'), "no colour when not a terminal");
}

#[test]
fn invalid_fen_explains_and_exits_1() {
    let out = fenlens(
        &[
            "check",
            "rnbqkbnr/pp1pppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("error[rank-length] rank 7"), "{text}");
    assert!(text.contains("7 squares"), "{text}");
}

#[test]
fn json_gives_one_object_per_line_in_order() {
    let input = format!("{START}\n\nnot a fen\n4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1\r\n");
    let out = fenlens(&["check", "--json", "-"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(objects.len(), 3, "blank lines are skipped: {text}");
    assert_eq!(objects[0]["input"], START);
    assert_eq!(objects[0]["fen"], START);
    assert_eq!(objects[0]["valid"], true);
    assert_eq!(objects[1]["fen"], serde_json::Value::Null);
    assert_eq!(objects[1]["valid"], false);
    let check = &objects[2]["diagnostics"][0];
    assert_eq!(check["code"], "opposite-check");
    assert_eq!(check["severity"], "error");
    assert_eq!(check["square"], "e8");
    assert_eq!(check["fix"], "4k3/4Q3/8/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn fen_files_are_read_line_by_line() {
    let dir = std::env::temp_dir().join(format!("fenlens-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("positions.fen");
    std::fs::write(&file, format!("{START}\n8/8/8/8/8/8/8/8 w - - 0 1\n")).unwrap();
    let out = fenlens(&["check", "--json", file.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let codes: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["diagnostics"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["code"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    assert_eq!(codes, ["", "empty-board"]);
}

#[test]
fn fix_prints_corrected_fen_or_explains() {
    let out = fenlens(
        &[
            "check",
            "--fix",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w KQkq e3 0 1",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).trim_end(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1"
    );

    let out = fenlens(&["check", "--fix", "8/8/8/8/8/8/8/8 w - - 0 1"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("empty-board"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(fenlens(&["check"], b"").status.code(), Some(2));
    assert_eq!(
        fenlens(&["check", "--nope", START], b"").status.code(),
        Some(2)
    );
    assert_eq!(
        fenlens(&["check", "--json", "--fix", START], b"")
            .status
            .code(),
        Some(2)
    );
    assert_eq!(fenlens(&["frobnicate"], b"").status.code(), Some(2));
}

#[test]
fn hostile_input_gets_an_answer_not_a_panic() {
    // 10 MB of junk with invalid UTF-8, NULs and no newline, then a valid line.
    let mut junk: Vec<u8> = (0..10_000_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 24) as u8)
        .collect();
    junk.retain(|b| *b != b'\n');
    junk.extend_from_slice(b"\n");
    junk.extend_from_slice(START.as_bytes());
    let out = fenlens(&["check", "--json", "-"], &junk);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first["valid"], false);
    assert!(first["diagnostics"].as_array().unwrap().len() <= 20);
    let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(second["valid"], true);
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn help_teaches_inputs_and_exit_codes() {
    let out = fenlens(&["check", "--help"], b"");
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for needle in ["--json", "--fix", ".fen", "Exit status", "--ep"] {
        assert!(text.contains(needle), "{needle} missing from help");
    }
}
