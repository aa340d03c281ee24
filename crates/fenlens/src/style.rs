//! Terminal colours: used only when the stream is a terminal and `NO_COLOR` is not set.

use std::io::IsTerminal;

/// ANSI styling that turns itself off when not wanted.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    enabled: bool,
}

impl Style {
    /// Colours for standard output, when it is a terminal and `NO_COLOR` is unset.
    pub fn for_stdout() -> Self {
        let enabled = std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Style { enabled }
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.enabled {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Red and bold.
    pub fn error(&self, text: &str) -> String {
        self.paint("1;31", text)
    }

    /// Yellow and bold.
    pub fn warning(&self, text: &str) -> String {
        self.paint("1;33", text)
    }

    /// Cyan.
    pub fn note(&self, text: &str) -> String {
        self.paint("36", text)
    }

    /// Green.
    pub fn good(&self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Dim.
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
}
