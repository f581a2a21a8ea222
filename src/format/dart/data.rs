//! The snapshot's encoding below the objects: LEB128 numbers, an object's
//! NonReferenceData, and the header that comes before the objects.

use super::*;

/// A LEB128 value read both ways: unsigned, and signed (two's complement from the last
/// byte's sign bit). At most 10 bytes.
pub(crate) fn leb(c: &mut Cursor, what: &str) -> ReadResult<(u64, i64)> {
    let start = c.offset();
    let (mut u, mut shift) = (0u64, 0u32);
    loop {
        let byte = c.u8(what)?;
        if shift >= 64 {
            return Err(ParseError::new(
                start,
                format!("{what} (LEB128)"),
                "more than 64 bits",
            ));
        }
        u |= u64::from(byte & 0x7f) << shift;
        shift += 7;
        if byte & 0x80 == 0 {
            let s = if shift < 64 && byte & 0x40 != 0 {
                (u | (!0u64 << shift)) as i64
            } else {
                u as i64
            };
            return Ok((u, s));
        }
    }
}

/// An object's NonReferenceData, with offsets into the file for its bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Data {
    None,
    Null,
    Bool(bool),
    /// The value read unsigned and signed; which one holds depends on the class.
    Int {
        unsigned: u64,
        signed: i64,
    },
    Double(f64),
    /// Full length in code units, then (offset, kept code units).
    Latin1 {
        len: u64,
        at: usize,
        kept: usize,
    },
    Utf16 {
        len: u64,
        at: usize,
        kept: usize,
    },
    Length(u64),
    Name {
        at: usize,
        len: usize,
    },
}

/// Reads one NonReferenceData.
pub(crate) fn data(c: &mut Cursor) -> ReadResult<Data> {
    let at = c.offset();
    let tag = c.uleb128("data tag")?;
    Ok(match tag {
        spec::TAG_NONE => Data::None,
        spec::TAG_NULL => Data::Null,
        spec::TAG_BOOL => Data::Bool(c.uleb128("bool value")? != 0),
        spec::TAG_INT => {
            let (unsigned, signed) = leb(c, "integer value")?;
            Data::Int { unsigned, signed }
        }
        spec::TAG_DOUBLE => {
            let v = c.bytes(8, "double value")?;
            let mut a = [0u8; 8];
            a.copy_from_slice(v);
            Data::Double(f64::from_le_bytes(a))
        }
        spec::TAG_LATIN1 | spec::TAG_UTF16 => {
            let unit = if tag == spec::TAG_LATIN1 { 1 } else { 2 };
            let len = c.uleb128("string length")?;
            let kept = count(c, unit, "string code units (truncated length)")?;
            let at = c.offset() as usize;
            c.skip(kept * unit as usize, "string code units")?;
            if tag == spec::TAG_LATIN1 {
                Data::Latin1 { len, at, kept }
            } else {
                Data::Utf16 { len, at, kept }
            }
        }
        spec::TAG_LENGTH => Data::Length(c.uleb128("length")?),
        spec::TAG_NAME => {
            let (at, len) = string(c, "name")?;
            Data::Name { at, len }
        }
        t => {
            return Err(ParseError::new(
                at,
                "a NonReferenceData tag from 0 to 8",
                t.to_string(),
            ))
        }
    })
}

/// What comes before the objects.
pub(crate) struct Header {
    pub flags: u64,
    pub name: String,
    pub shallow_size: u64,
    pub capacity: u64,
    pub external_size: u64,
    pub classes: Vec<Class>,
    pub reference_count: u64,
    pub object_count: u64,
    /// Offset of the first object.
    pub objects_at: usize,
}

pub(crate) fn header(b: &[u8]) -> ReadResult<Header> {
    let mut c = Cursor::new(b, 0);
    let magic = c.bytes(8, "the magic \"dartheap\"")?;
    if magic != spec::MAGIC {
        return Err(ParseError::new(
            0,
            "\"dartheap\"",
            crate::format::read::quoted_bytes(magic),
        ));
    }
    let flags = c.uleb128("flags")?;
    let name = string(&mut c, "isolate name")?;
    let shallow_size = c.uleb128("shallow size")?;
    let capacity = c.uleb128("capacity")?;
    let external_size = c.uleb128("external size")?;
    // A class is at least six LEB128 values of one byte each.
    let class_count = count(&mut c, 6, "classes")?;
    let mut classes = Vec::with_capacity(class_count);
    for _ in 0..class_count {
        c.uleb128("class flags")?;
        let name = string(&mut c, "class name")?;
        let lib_name = string(&mut c, "library name")?;
        let lib_uri = string(&mut c, "library URI")?;
        string(&mut c, "reserved")?;
        // A field is at least four one-byte values.
        let n = count(&mut c, 4, "fields")?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            c.uleb128("field flags")?;
            let index = c.uleb128("field index")?;
            let fname = string(&mut c, "field name")?;
            string(&mut c, "reserved")?;
            fields.push((index, text(b, fname)));
        }
        let mut class = Class {
            name: text(b, name),
            library_name: text(b, lib_name),
            library_uri: text(b, lib_uri),
            fields,
            ..Default::default()
        };
        if let Some((_, _, names)) = spec::WEAK
            .iter()
            .find(|w| w.0 == class.library_uri && w.1 == class.name)
        {
            class.weak_elements = names.is_empty();
            class.weak = class
                .fields
                .iter()
                .filter(|f| names.contains(&f.1.as_str()))
                .map(|f| f.0)
                .collect();
        }
        classes.push(class);
    }
    let reference_count = c.uleb128("reference count")?;
    let at = c.offset();
    let object_count = c.uleb128("object count")?;
    if object_count >= u32::MAX as u64 {
        return Err(ParseError::new(
            at,
            "an object count below 2^32 - 1",
            object_count.to_string(),
        ));
    }
    Ok(Header {
        flags,
        name: text(b, name),
        shallow_size,
        capacity,
        external_size,
        classes,
        reference_count,
        object_count,
        objects_at: c.pos(),
    })
}
