//! Values in the words of an instance list's Value column: a primitive as written, a
//! string's text quoted and cut, an instance's first two value fields.

use super::{float_text, Content, Encoding, Inspection, Value};
use crate::heap::ObjId;

/// A primitive value as the Value column writes it (`4242`, `true`, `'x'` as `x`, a
/// text quoted); `None` for references and nulls.
pub fn value_word(v: &Value) -> Option<String> {
    Some(match v {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => float_text(*x),
        Value::Bool(b) => b.to_string(),
        Value::Char(c) => char::from_u32(*c as u32)
            .map(|c| c.to_string())
            .unwrap_or_else(|| format!("\\u{{{c:x}}}")),
        Value::Text(t) => format!("{t:?}"),
        _ => return None,
    })
}

/// The first two value fields of an inspection as `name=value`: primitives, and
/// references to strings as the string's text (`user="user-42"`, by `string`, which
/// gives a referred object's text when it is a string).
pub fn first_fields_of(ins: &Inspection, string: impl Fn(ObjId) -> Option<String>) -> String {
    let words: Vec<String> = ins
        .fields
        .iter()
        .filter(|f| !f.is_static)
        .filter_map(|f| {
            let v = match &f.value {
                Value::Object(o) => string(*o)?,
                v => value_word(v)?,
            };
            Some(format!("{}={v}", f.name))
        })
        .take(2)
        .collect();
    words.join(" ")
}

/// How many characters of a string a value word keeps (as a string's label does).
const STRING_WORD_CHARS: usize = 64;

/// A string's contents as a value word: its text quoted, cut after
/// [`STRING_WORD_CHARS`] characters (`"user-42"`, `"abc…"…`); `None` for an array.
pub fn string_word(c: Option<Content>) -> Option<String> {
    let c = c.filter(|c| c.string)?;
    // No more of a long string is converted than is shown.
    let keep = STRING_WORD_CHARS + 1;
    let data = match c.encoding {
        Encoding::Latin1 | Encoding::Binary => &c.data[..c.data.len().min(keep)],
        Encoding::Utf16Le => &c.data[..c.data.len().min(2 * keep) & !1],
        Encoding::Utf8 => &c.data[..],
    };
    let text = Content {
        data: std::borrow::Cow::Borrowed(data),
        ..c
    }
    .text();
    let mut cut: String = text.chars().take(STRING_WORD_CHARS).collect();
    let more =
        c.length as usize > STRING_WORD_CHARS || text.chars().nth(STRING_WORD_CHARS).is_some();
    cut = format!("{cut:?}");
    if more {
        cut.push('…');
    }
    Some(cut)
}
