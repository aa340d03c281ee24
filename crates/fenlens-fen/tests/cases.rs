//! Runs the data-driven cases in `cases.txt` (format described at its top).

use fenlens_fen::shakmaty::Square;
use fenlens_fen::{
    CastlingNotation, CheckOptions, Code, EnPassantWrite, Location, WriteOptions, check, fix,
};

fn parse_location(text: &str) -> Location {
    let (kind, rest) = text.split_at(1);
    match kind {
        "r" if rest.len() == 1 => Location::Rank(rest.parse().expect("rank number")),
        "f" if rest.len() == 1 => Location::Field(rest.parse().expect("field number")),
        _ => Location::Square(text.parse::<Square>().expect("square")),
    }
}

fn parse_options(text: &str) -> CheckOptions {
    let mut options = CheckOptions::default();
    for word in text.split_whitespace() {
        match word {
            "chess960" => options.chess960 = true,
            "ep=legal" => options.write.en_passant = EnPassantWrite::Legal,
            "castling=shredder" => options.write.castling = Some(CastlingNotation::Shredder),
            "castling=xfen" => options.write.castling = Some(CastlingNotation::XFen),
            "castling=standard" => options.write.castling = Some(CastlingNotation::Standard),
            other => panic!("unknown option {other}"),
        }
    }
    options
}

fn parse_input(text: &str) -> String {
    if text.starts_with('"') {
        serde_json::from_str(text).expect("JSON string input")
    } else {
        text.to_string()
    }
}

#[test]
fn every_case_gives_its_diagnostics_and_fix() {
    let cases = include_str!("cases.txt");
    let mut failures = Vec::new();
    let mut seen_codes = std::collections::HashSet::new();
    let mut count = 0;
    for (number, line) in cases.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        count += 1;
        let columns: Vec<&str> = line.split(" | ").collect();
        assert!(
            (3..=4).contains(&columns.len()),
            "line {}: needs 3 or 4 columns",
            number + 1
        );
        let input = parse_input(columns[0]);
        let options = parse_options(columns.get(3).copied().unwrap_or(""));
        let report = check(input.as_bytes(), &options);

        let mut expected: Vec<(Code, Location)> = if columns[1] == "-" {
            Vec::new()
        } else {
            columns[1]
                .split(", ")
                .map(|item| {
                    let (code, location) = item.split_once('@').expect("code@location");
                    let code = Code::from_name(code)
                        .unwrap_or_else(|| panic!("line {}: unknown code {code}", number + 1));
                    (code, parse_location(location))
                })
                .collect()
        };
        let mut actual: Vec<(Code, Location)> = report
            .diagnostics
            .iter()
            .map(|d| (d.code, d.location))
            .collect();
        seen_codes.extend(actual.iter().map(|(code, _)| *code));
        let key = |x: &(Code, Location)| format!("{}@{}", x.0, x.1);
        expected.sort_by_key(key);
        actual.sort_by_key(key);
        if expected != actual {
            failures.push(format!(
                "line {}: {input:?}\n  expected {:?}\n  got      {:?}\n  messages {:#?}",
                number + 1,
                expected.iter().map(key).collect::<Vec<_>>(),
                actual.iter().map(key).collect::<Vec<_>>(),
                report
                    .diagnostics
                    .iter()
                    .map(|d| &d.message)
                    .collect::<Vec<_>>()
            ));
            continue;
        }

        let fix_column = columns[2];
        if let Some(whole) = fix_column.strip_prefix("fix!") {
            let got = fix(input.as_bytes(), &options);
            let ok = match (whole, &got) {
                ("unfixable", Err(_)) => true,
                (fen, Ok(fixed)) => fen == fixed,
                _ => false,
            };
            if !ok {
                failures.push(format!(
                    "line {}: fix({input:?}) expected {whole}, got {got:?}",
                    number + 1
                ));
            }
        } else {
            let first_fix = report.diagnostics.iter().find_map(|d| d.fix.as_deref());
            let expected_fix = (fix_column != "-").then_some(fix_column);
            if first_fix != expected_fix {
                failures.push(format!(
                    "line {}: {input:?}\n  expected fix {expected_fix:?}\n  got          {first_fix:?}",
                    number + 1
                ));
            }
        }
        // Every diagnosis is a plain sentence.
        for d in &report.diagnostics {
            assert!(
                d.message.ends_with('.') && d.message.len() > 20,
                "line {}: {:?}",
                number + 1,
                d.message
            );
        }
    }
    assert!(count > 60, "only {count} cases");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| !seen_codes.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(missing.is_empty(), "codes without a case: {missing:?}");
}

#[test]
fn write_options_choose_castling_notation() {
    let options = CheckOptions {
        write: WriteOptions {
            castling: Some(CastlingNotation::Shredder),
            ..WriteOptions::default()
        },
        ..CheckOptions::default()
    };
    let report = check(
        b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &options,
    );
    assert_eq!(
        report.fen.as_deref(),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w AHah - 0 1")
    );
}
