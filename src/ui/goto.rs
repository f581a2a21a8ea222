//! Going to an object by its id: `heaptui FILE --goto OBJECT|class:NAME|view:suspects|
//! view:waste` opens there, and a list's `/` filter takes an object id as the tool
//! prints it (`@N`, `0x…`, `#N`) and opens its inspector on `Enter` (as DevTools'
//! "Reveal in Summary view" and MAT's "Go to object" by address).

/// Where `--goto` opens the TUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Goto {
    /// An object as the tool prints it (`0x7f…`, `@123`, `#45`).
    Object(String),
    /// A class's instances (`class:java.util.HashMap`).
    Class(String),
    /// The leak suspects.
    Suspects,
    /// The waste findings.
    Waste,
}

impl Goto {
    /// `--goto`'s value; the error says what it takes.
    pub fn parse(text: &str) -> Result<Goto, String> {
        let text = text.trim();
        if let Some(view) = text.strip_prefix("view:") {
            return match view {
                "suspects" => Ok(Goto::Suspects),
                "waste" => Ok(Goto::Waste),
                _ => Err(format!(
                    "--goto view:{view}: no such view; the views are view:suspects and \
                     view:waste"
                )),
            };
        }
        if let Some(class) = text.strip_prefix("class:") {
            if class.is_empty() {
                return Err("--goto class: needs a class name (class:NAME)".into());
            }
            return Ok(Goto::Class(class.to_string()));
        }
        match object_id(text) {
            Some(id) => Ok(Goto::Object(id.to_string())),
            None => Err(format!(
                "--goto {text}: not an object (0x… address, @N, #N), class:NAME, \
                 view:suspects or view:waste"
            )),
        }
    }
}

/// `text` when it is written as the tool writes an object's id: `@N` (a V8 node id),
/// `#N` (a MoarVM or Dart object), `0x` and hex digits (an HPROF or Go address). No
/// class name of any runtime is written so, so a filter that reads as one is an id.
pub fn object_id(text: &str) -> Option<&str> {
    let t = text.trim();
    let digits = |s: &str, hex: bool| {
        !s.is_empty()
            && s.len() <= 20
            && s.chars().all(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    let ok = if let Some(n) = t.strip_prefix('@').or_else(|| t.strip_prefix('#')) {
        digits(n, false)
    } else if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        digits(h, true)
    } else {
        false
    };
    ok.then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_views_and_classes_are_told_apart() {
        assert_eq!(object_id(" @73001 "), Some("@73001"));
        assert_eq!(object_id("#12"), Some("#12"));
        assert_eq!(object_id("0xfe0aca10"), Some("0xfe0aca10"));
        for not in [
            "@",
            "0x",
            "0xfg",
            "@12a",
            "HashMap",
            "java.lang.String",
            "12",
            "",
        ] {
            assert_eq!(object_id(not), None, "{not}");
        }
        assert_eq!(Goto::parse("view:waste"), Ok(Goto::Waste));
        assert_eq!(Goto::parse("view:suspects"), Ok(Goto::Suspects));
        assert_eq!(
            Goto::parse("class:java.util.HashMap"),
            Ok(Goto::Class("java.util.HashMap".into()))
        );
        assert_eq!(Goto::parse("@5"), Ok(Goto::Object("@5".into())));
        assert!(Goto::parse("view:nope")
            .unwrap_err()
            .contains("view:suspects"));
        assert!(Goto::parse("HashMap").is_err());
        assert!(Goto::parse("class:").is_err());
    }
}
