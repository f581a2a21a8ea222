//! The `heaptui` binary: everything lives in the library; this only sets the exit code.

fn main() {
    std::process::exit(heaptui::cli::main());
}
