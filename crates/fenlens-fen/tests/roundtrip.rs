//! Property tests: write(read(x)) == x over positions from random legal games (standard and
//! Chess960, in every castling notation), and agreement with shakmaty on which positions are
//! valid.

use fenlens_fen::shakmaty::fen::Fen;
use fenlens_fen::shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    Setup, Square,
};
use fenlens_fen::{CastlingNotation, CheckOptions, EnPassantWrite, WriteOptions, check};
use proptest::prelude::*;

/// Plays `plies` pseudo-random legal moves chosen by `seed` (a small LCG, so cases shrink well).
fn random_game(mut pos: Chess, seed: u64, plies: usize) -> Chess {
    let mut state = seed | 1;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = moves[(state >> 33) as usize % moves.len()];
        pos.play_unchecked(m);
    }
    pos
}

fn options(notation: Option<CastlingNotation>, ep: EnPassantWrite, chess960: bool) -> CheckOptions {
    CheckOptions {
        chess960,
        write: WriteOptions {
            castling: notation,
            en_passant: ep,
        },
    }
}

fn chess960_start(index: u32) -> Chess {
    let setup = Setup {
        board: Board::chess960(index),
        castling_rights: Bitboard::CORNERS,
        ..Setup::empty()
    };
    // Castling rights on the rooks, wherever they stand.
    let mut setup = setup;
    setup.castling_rights = setup.board.rooks() & Bitboard::BACKRANKS;
    Chess::from_setup(setup, CastlingMode::Chess960).expect("a Chess960 start position")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn standard_games_round_trip(seed in any::<u64>(), plies in 0usize..160) {
        let pos = random_game(Chess::default(), seed, plies);
        for (mode, ep) in [(EnPassantMode::Always, EnPassantWrite::Always), (EnPassantMode::Legal, EnPassantWrite::Legal)] {
            let fen = Fen::from_position(&pos, mode).to_string();
            let report = check(fen.as_bytes(), &options(None, ep, false));
            prop_assert!(report.is_valid(), "{fen}: {:?}", report.diagnostics);
            prop_assert_eq!(report.fen.as_deref(), Some(fen.as_str()));
        }
    }

    #[test]
    fn chess960_games_round_trip_in_shredder_and_x_fen(index in 0u32..960, seed in any::<u64>(), plies in 0usize..40) {
        let start = chess960_start(index);
        let pos = random_game(start, seed, plies);
        let setup = pos.to_setup(EnPassantMode::Always);
        // Shredder-FEN, built here independently of the writer: rook files, white first.
        let mut shredder = String::new();
        for color in Color::ALL {
            for rook in setup.castling_rights & color.backrank() {
                let c = rook.file().char();
                shredder.push(if color.is_white() { c.to_ascii_uppercase() } else { c });
            }
        }
        if shredder.is_empty() {
            shredder.push('-');
        }
        let fen = Fen::from_position(&pos, EnPassantMode::Always).to_string();
        let mut fields: Vec<&str> = fen.split(' ').collect();
        fields[2] = &shredder;
        let shredder_fen = fields.join(" ");
        let report = check(shredder_fen.as_bytes(), &options(None, EnPassantWrite::Always, false));
        prop_assert!(report.is_valid(), "{shredder_fen}: {:?}", report.diagnostics);
        prop_assert_eq!(report.fen.as_deref(), Some(shredder_fen.as_str()));

        // X-FEN: read with the Chess960 option, written back the same.
        let xfen = report_fen(&shredder_fen, options(Some(CastlingNotation::XFen), EnPassantWrite::Always, true));
        let again = check(xfen.as_bytes(), &options(None, EnPassantWrite::Always, true));
        prop_assert!(again.is_valid(), "{xfen}: {:?}", again.diagnostics);
        prop_assert_eq!(again.fen.as_deref(), Some(xfen.as_str()));
        if plies == 0 {
            // In a start position each rook is the outermost on its side: plain KQkq.
            prop_assert_eq!(xfen.split(' ').nth(2), Some("KQkq"));
        }
    }

    #[test]
    fn validity_agrees_with_shakmaty(
        pieces in prop::collection::vec((0u32..64, 0usize..12), 0..24),
        kings in (0u32..64, 0u32..64),
        black in any::<bool>(),
        corners in 0u8..16,
        ep_file in prop::option::of(0u32..8),
        chess960 in any::<bool>(),
    ) {
        let mut setup = Setup::empty();
        let extra = pieces;
        // Give each side a king, so most cases reach the deeper checks (pieces may replace them).
        setup.board.set_piece_at(Square::new(kings.0), Piece { color: Color::White, role: Role::King });
        setup.board.set_piece_at(Square::new(kings.1), Piece { color: Color::Black, role: Role::King });
        for (square, piece) in extra {
            let piece = Piece {
                color: Color::from_white(piece < 6),
                role: Role::ALL[piece % 6],
            };
            setup.board.set_piece_at(Square::new(square), piece);
        }
        setup.turn = Color::from_white(!black);
        for (bit, square) in [Square::A1, Square::H1, Square::A8, Square::H8].into_iter().enumerate() {
            if corners & (1 << bit) != 0 {
                setup.castling_rights.add(square);
            }
        }
        setup.ep_square = ep_file.map(|f| {
            let rank = if black { 2 } else { 5 };
            Square::new(rank * 8 + f)
        });
        let fen = Fen::try_from_setup(setup).unwrap_or_else(|e| e.ignore()).to_string();
        let mode = if chess960 { CastlingMode::Chess960 } else { CastlingMode::Standard };
        let shakmaty_valid = fen
            .parse::<Fen>()
            .ok()
            .map(|f| f.into_position::<Chess>(mode).is_ok());
        let report = check(fen.as_bytes(), &options(None, EnPassantWrite::Always, chess960));
        prop_assert_eq!(Some(report.is_valid()), shakmaty_valid, "{} {:?}", fen, report.diagnostics);
    }

    #[test]
    fn any_bytes_get_an_answer(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let report = check(&bytes, &CheckOptions::default());
        if report.fen.is_none() {
            prop_assert!(!report.is_valid());
        }
        let _ = serde_json::to_string(&report).expect("serializable");
    }
}

fn report_fen(fen: &str, options: CheckOptions) -> String {
    check(fen.as_bytes(), &options).fen.expect("readable")
}
