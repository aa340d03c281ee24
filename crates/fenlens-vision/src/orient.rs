//! Orient: is White at the bottom?
//!
//! The recognized placement is read as displayed; if the picture shows Black at the bottom, the
//! real placement is that one turned by 180 degrees. Without reading coordinate labels, the
//! position decides: pawns advance up the board, kings stay home, pieces start on their own
//! side (the same score the FEN checker uses for its "board upside down" warning). The
//! confidence is a logistic function of the score difference.

use fenlens_fen::orientation_score;
use fenlens_fen::shakmaty::Board;

/// The orientation decision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Orientation {
    /// Black at the bottom.
    pub flipped: bool,
    /// Probability that `flipped` is right, 0.5-1.
    pub confidence: f32,
}

/// Decides the orientation of a placement read as displayed (top row = rank 8).
pub fn orient(as_displayed: &Board) -> Orientation {
    let mut turned = as_displayed.clone();
    turned.rotate_180();
    let difference = orientation_score(&turned) - orientation_score(as_displayed);
    let confidence = 1.0 / (1.0 + (-(difference.abs() as f32) * 0.6).exp());
    Orientation {
        flipped: difference > 0,
        confidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_upright_and_its_rotation_is_flipped() {
        let start = Board::new();
        let upright = orient(&start);
        assert!(!upright.flipped);
        assert!(upright.confidence > 0.99);
        let mut turned = start.clone();
        turned.rotate_180();
        assert!(orient(&turned).flipped);
        assert_eq!(orient(&Board::empty()).confidence, 0.5);
    }
}
