//! Embeds the trained weights when `models/square-net.safetensors` exists (it is committed; it
//! is missing only while bootstrapping the very first training run).
fn main() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/square-net.safetensors");
    println!("cargo::rustc-check-cfg=cfg(fenlens_has_model)");
    println!("cargo::rerun-if-changed={}", path.display());
    if path.is_file() {
        println!("cargo::rustc-cfg=fenlens_has_model");
    }
}
