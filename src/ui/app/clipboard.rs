//! Copies to the terminal's clipboard (OSC 52).

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 12);
    out.push_str("\x1b]52;c;");
    for chunk in bytes.chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= n {
                out.push(B64[(v >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out.push('\x07');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn osc52_is_base64_in_the_clipboard_sequence() {
        assert_eq!(super::osc52("@123"), "\x1b]52;c;QDEyMw==\x07");
        assert_eq!(super::osc52("0xfc3935b0"), "\x1b]52;c;MHhmYzM5MzViMA==\x07");
        assert_eq!(super::osc52("abc"), "\x1b]52;c;YWJj\x07");
    }
}
