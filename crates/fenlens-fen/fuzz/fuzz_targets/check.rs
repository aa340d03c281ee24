//! Fuzzes the FEN reader and checker with arbitrary bytes.
//!
//! Invariants: no panic; a valid report has a FEN; the canonical FEN reads back to itself with no
//! syntax error; `fix` never panics and, when it succeeds, gives a valid FEN; the report is JSON.
#![no_main]

use fenlens_fen::{CheckOptions, EnPassantWrite, check, fix};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let legal_ep = data.first().is_some_and(|b| b & 1 == 1);
    let mut options = CheckOptions::default();
    if legal_ep {
        options.write.en_passant = EnPassantWrite::Legal;
    }
    let report = check(data, &options);
    assert!(serde_json::to_string(&report).is_ok());
    if report.is_valid() {
        assert!(report.fen.is_some());
    }
    if let Some(fen) = &report.fen {
        let again = check(fen.as_bytes(), &options);
        assert_eq!(again.fen.as_ref(), Some(fen), "canonical FEN is stable");
        let syntax = again.diagnostics.iter().find(|d| {
            d.is_error()
                && matches!(
                    d.code.as_str(),
                    "rank-length" | "rank-count" | "bad-character" | "bad-side-to-move"
                        | "bad-castling" | "bad-en-passant" | "bad-halfmove-clock"
                        | "bad-fullmove-number" | "extra-fields"
                )
        });
        assert!(syntax.is_none(), "canonical FEN {fen} has {syntax:?}");
    }
    if let Ok(fixed) = fix(data, &options) {
        assert!(check(fixed.as_bytes(), &options).is_valid(), "{fixed}");
    }
});
