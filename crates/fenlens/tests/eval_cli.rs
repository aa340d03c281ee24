//! End-to-end test of `fenlens eval`: a dataset rendered by `fenlens render --dataset`, read
//! back, with one ground truth changed so that the report has something to find.

mod common;

use common::{fenlens, temp_dir};

fn row(report: &str, row: &str) -> Vec<String> {
    report
        .lines()
        .map(|l| l.split_whitespace().map(String::from).collect::<Vec<_>>())
        .find(|cells| cells.first().map(String::as_str) == Some(row))
        .unwrap_or_else(|| panic!("no row {row} in:\n{report}"))
}

#[test]
fn eval_reports_a_wrong_orientation_apart_from_misread_squares() {
    let dir = temp_dir("eval");
    let data = dir.display().to_string();
    let out = fenlens(&[
        "render",
        "--dataset",
        &data,
        "--count",
        "4",
        "--seed",
        "5",
        "--mix",
        "clean",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Claim that the second picture shows the position turned by 180 degrees, seen from the
    // other side (which looks exactly the same): the recognizer, reading it as drawn, now
    // disagrees with the "truth" on its orientation and on most of its squares.
    let manifest = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    let turn = |v: &mut serde_json::Value| {
        let flipped = v["flipped"].as_bool().unwrap();
        v["flipped"] = serde_json::Value::Bool(!flipped);
        let placement = v["placement"].as_str().unwrap();
        let mut board = fenlens_fen::read(placement.as_bytes()).setup.unwrap().board;
        board.rotate_180();
        v["placement"] = serde_json::Value::String(board.board_fen().to_string());
    };
    turn(&mut lines[1]);
    for board in lines[1]["boards"].as_array_mut().unwrap() {
        turn(board);
    }
    let rewritten: Vec<String> = lines.iter().map(|v| v.to_string()).collect();
    std::fs::write(&manifest, rewritten.join("\n") + "\n").unwrap();

    let out = fenlens(&["eval", &data]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).unwrap();
    let header = row(&report, "category");
    let all = row(&report, "all");
    let column = |name: &str| {
        let i = header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"));
        all[i].clone()
    };
    assert_eq!(column("boards"), "4");
    assert_eq!(column("exact"), "75.0%");
    assert_eq!(column("orient"), "75.0%");
    // One board turned the wrong way, counted in its own column ("unsure/wrong")...
    assert!(column("or.unsure").ends_with("/1"), "{report}");
    // ...and not as misread squares: the three boards turned right are read exactly, so there
    // is no misread square to flag.
    assert_eq!(column("flagged"), "0.0%");
    let squares: f64 = column("squares").trim_end_matches('%').parse().unwrap();
    assert!(squares < 95.0, "the turned board's squares count as wrong");
    let _ = std::fs::remove_dir_all(&dir);
}
