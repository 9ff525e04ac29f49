fn main() {
    std::process::exit(ioz::app::main_with_args(std::env::args_os().collect()));
}
