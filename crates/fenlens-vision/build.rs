//! Embeds the trained weights: `models/square-net.safetensors`, `-2`, `-3` and `-4` (all
//! committed; they are averaged at run time). A missing file is left out: all are missing only
//! while bootstrapping the very first training runs.
fn main() {
    // Read at run time, not with env!(): cargo may reuse this script's binary for a checkout at
    // another path (a worktree sharing the target folder), which would then look for the
    // models where the first checkout was.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let models = std::path::Path::new(&manifest_dir).join("../../models");
    for (file, cfg) in [
        ("square-net.safetensors", "fenlens_has_model"),
        ("square-net-2.safetensors", "fenlens_has_second_model"),
        ("square-net-3.safetensors", "fenlens_has_third_model"),
        ("square-net-4.safetensors", "fenlens_has_fourth_model"),
    ] {
        let path = models.join(file);
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        println!("cargo::rerun-if-changed={}", path.display());
        if path.is_file() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
