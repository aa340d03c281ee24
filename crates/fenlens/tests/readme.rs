//! The README's test command is what CI runs: `.ci/run` ends with the command in the README's
//! block after "Run the whole test suite".

use std::path::Path;

/// The lines of the first ```sh block after the line starting with `heading`.
fn sh_block_after(text: &str, heading: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with(heading))
        .skip_while(|l| *l != "```sh")
        .skip(1)
        .take_while(|l| *l != "```")
        .map(str::to_string)
        .collect()
}

#[test]
fn ci_runs_the_readme_test_command() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = sh_block_after(&readme, "Run the whole test suite");
    assert_eq!(
        command.len(),
        1,
        "one command in the README's block: {command:?}"
    );
    let ci = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    let last = ci
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or_default();
    assert_eq!(last, command[0], ".ci/run's last command and the README's");
}
