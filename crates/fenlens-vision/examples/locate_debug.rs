fn main() {
    let path = std::env::args().nth(1).expect("path");
    let bytes = std::fs::read(path).unwrap();
    let image = fenlens_vision::decode::decode(&bytes).unwrap();
    println!("{:?}", fenlens_vision::locate::locate(&image));
}
