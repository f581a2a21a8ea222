//! A column of the index: a vector the readers build, or a stretch of a memory-mapped
//! index cache entry ([`crate::cache`]) read back without a copy.
//!
//! Views only read columns, through `Deref<Target = [T]>`. Builders use the few vector
//! methods here; on a mapped column they first copy it into memory (never done on a
//! reopened index, whose columns nobody changes). A mapped column's pages are the cache
//! file's page cache: they count as mapped-file memory, not as the process's own, and the
//! kernel can drop and re-read them.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// The bytes of a mapped column: the entry's map, shared by all its columns.
#[derive(Clone)]
pub struct Mapped {
    map: Arc<memmap2::Mmap>,
    /// Byte offset of the column in the map (aligned for `T`) and its length in `T`s.
    at: usize,
    len: usize,
}

pub enum Column<T> {
    Owned(Vec<T>),
    Mapped(Mapped, std::marker::PhantomData<T>),
}

/// Plain integers: every byte pattern is a value and there is no padding.
pub trait Plain: Copy + Default + Send + Sync + 'static {}
impl Plain for u8 {}
impl Plain for u16 {}
impl Plain for u32 {}
impl Plain for u64 {}

impl<T: Plain> Column<T> {
    /// `len` values at byte offset `at` of `map`, or `None` when they are not inside it
    /// or not aligned for `T`.
    pub fn mapped(map: &Arc<memmap2::Mmap>, at: usize, len: usize) -> Option<Self> {
        let size = std::mem::size_of::<T>();
        let end = len.checked_mul(size)?.checked_add(at)?;
        if end > map.len() || (map.as_ptr() as usize + at) % std::mem::align_of::<T>() != 0 {
            return None;
        }
        Some(Column::Mapped(
            Mapped {
                map: map.clone(),
                at,
                len,
            },
            std::marker::PhantomData,
        ))
    }
}

impl<T: Plain> Column<T> {
    /// The vector, copying a mapped column into memory first.
    pub fn to_mut(&mut self) -> &mut Vec<T> {
        if let Column::Mapped(..) = self {
            *self = Column::Owned(self.deref().to_vec());
        }
        match self {
            Column::Owned(v) => v,
            Column::Mapped(..) => unreachable!("copied just above"),
        }
    }

    pub fn is_mapped(&self) -> bool {
        matches!(self, Column::Mapped(..))
    }

    pub fn push(&mut self, v: T) {
        self.to_mut().push(v)
    }

    pub fn extend_from_slice(&mut self, v: &[T]) {
        self.to_mut().extend_from_slice(v)
    }

    pub fn reserve_exact(&mut self, n: usize) {
        self.to_mut().reserve_exact(n)
    }

    pub fn resize(&mut self, n: usize, v: T) {
        self.to_mut().resize(n, v)
    }

    pub fn truncate(&mut self, n: usize) {
        self.to_mut().truncate(n)
    }

    pub fn clear(&mut self) {
        *self = Column::Owned(Vec::new());
    }

    pub fn pop(&mut self) -> Option<T> {
        self.to_mut().pop()
    }

    pub fn shrink_to_fit(&mut self) {
        if let Column::Owned(v) = self {
            v.shrink_to_fit()
        }
    }

    /// The column's bytes: its vector's capacity, or its stretch of the map (which is
    /// page cache, not the process's own memory; the index counts it all the same).
    pub fn bytes(&self) -> usize {
        match self {
            Column::Owned(v) => v.capacity() * std::mem::size_of::<T>(),
            Column::Mapped(m, _) => m.len * std::mem::size_of::<T>(),
        }
    }
}

impl<T: Plain> Deref for Column<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            Column::Owned(v) => v,
            Column::Mapped(m, _) => {
                // SAFETY: `mapped` checked that the range lies inside the map and is
                // aligned for `T`; `T` is a plain integer (every bit pattern valid); the
                // map is read-only and lives as long as this column (the `Arc`). The entry
                // file is replaced by rename, never rewritten in place, so its bytes do
                // not change under the map.
                unsafe { std::slice::from_raw_parts(m.map.as_ptr().add(m.at) as *const T, m.len) }
            }
        }
    }
}

impl<T: Plain> DerefMut for Column<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.to_mut()
    }
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column::Owned(Vec::new())
    }
}

impl<T: Plain> Clone for Column<T> {
    fn clone(&self) -> Self {
        match self {
            Column::Owned(v) => Column::Owned(v.clone()),
            Column::Mapped(m, p) => Column::Mapped(m.clone(), *p),
        }
    }
}

impl<T: Plain + std::fmt::Debug> std::fmt::Debug for Column<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Plain + PartialEq> PartialEq for Column<T> {
    fn eq(&self, other: &Self) -> bool {
        self.deref() == other.deref()
    }
}

impl<T: Plain + Eq> Eq for Column<T> {}

impl<T> From<Vec<T>> for Column<T> {
    fn from(v: Vec<T>) -> Self {
        Column::Owned(v)
    }
}

impl<T> FromIterator<T> for Column<T> {
    fn from_iter<I: IntoIterator<Item = T>>(i: I) -> Self {
        Column::Owned(i.into_iter().collect())
    }
}

impl<T: Plain> Extend<T> for Column<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, i: I) {
        self.to_mut().extend(i)
    }
}

impl<'a, T: Plain> IntoIterator for &'a Column<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A column of `u32` values kept in two bytes each where they fit: the class of every
/// object (while the snapshot has at most 65,536 classes: every real dump we have seen;
/// a 6 M-node V8 snapshot has 151), and shallow sizes (those of 65,535 bytes or more
/// then kept aside, see [`crate::heap::Graph::shallow_size`]). Read with
/// [`CompactColumn::get`]; builders collect a `Vec<u32>` and convert it once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompactColumn {
    Narrow(Column<u16>),
    Wide(Column<u32>),
}

/// Four bytes wide: a builder pushes into it and narrows it once it is whole.
impl Default for CompactColumn {
    fn default() -> Self {
        CompactColumn::Wide(Column::default())
    }
}

impl From<Vec<u32>> for CompactColumn {
    fn from(v: Vec<u32>) -> Self {
        CompactColumn::from_vec(v)
    }
}

impl CompactColumn {
    /// Two bytes per object when every class fits, else the vector as it is.
    pub fn from_vec(v: Vec<u32>) -> Self {
        if v.iter().all(|&c| c <= u16::MAX as u32) {
            let mut narrow: Vec<u16> = crate::sys::huge::with_capacity(v.len());
            narrow.extend(v.iter().map(|&c| c as u16));
            CompactColumn::Narrow(narrow.into())
        } else {
            CompactColumn::Wide(v.into())
        }
    }

    /// An empty four-byte column with room for `n` values.
    pub fn wide_with_capacity(n: usize) -> Self {
        CompactColumn::Wide(crate::sys::huge::with_capacity::<u32>(n).into())
    }

    /// Appends a value, which must fit the column's width.
    pub fn push(&mut self, v: u32) {
        match self {
            CompactColumn::Narrow(c) => {
                debug_assert!(v <= u16::MAX as u32);
                c.push(v as u16)
            }
            CompactColumn::Wide(c) => c.push(v),
        }
    }

    pub fn pop(&mut self) -> Option<u32> {
        match self {
            CompactColumn::Narrow(c) => c.pop().map(|x| x as u32),
            CompactColumn::Wide(c) => c.pop(),
        }
    }

    pub fn reserve_exact(&mut self, n: usize) {
        match self {
            CompactColumn::Narrow(c) => c.reserve_exact(n),
            CompactColumn::Wide(c) => c.reserve_exact(n),
        }
    }

    /// The value of object `i` (panics when out of range, as indexing does).
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        match self {
            CompactColumn::Narrow(c) => c[i] as u32,
            CompactColumn::Wide(c) => c[i],
        }
    }

    /// The class of object `i`, `None` when out of range.
    #[inline]
    pub fn try_get(&self, i: usize) -> Option<u32> {
        match self {
            CompactColumn::Narrow(c) => c.get(i).map(|&x| x as u32),
            CompactColumn::Wide(c) => c.get(i).copied(),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            CompactColumn::Narrow(c) => c.len(),
            CompactColumn::Wide(c) => c.len(),
        }
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value that says "look elsewhere" in a column of sizes: the width's maximum.
    #[inline]
    pub fn escape(&self) -> u32 {
        match self {
            CompactColumn::Narrow(_) => u16::MAX as u32,
            CompactColumn::Wide(_) => u32::MAX,
        }
    }

    pub fn is_mapped(&self) -> bool {
        match self {
            CompactColumn::Narrow(c) => c.is_mapped(),
            CompactColumn::Wide(c) => c.is_mapped(),
        }
    }

    pub fn is_narrow(&self) -> bool {
        matches!(self, CompactColumn::Narrow(_))
    }

    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let (narrow, wide): (&[u16], &[u32]) = match self {
            CompactColumn::Narrow(c) => (c, &[]),
            CompactColumn::Wide(c) => (&[], c),
        };
        narrow.iter().map(|&x| x as u32).chain(wide.iter().copied())
    }

    /// The greatest class, `None` when empty (for checking a cache entry).
    pub fn max(&self) -> Option<u32> {
        use rayon::prelude::*;
        match self {
            CompactColumn::Narrow(c) => c.par_iter().max().map(|&x| x as u32),
            CompactColumn::Wide(c) => c.par_iter().max().copied(),
        }
    }

    pub fn bytes(&self) -> usize {
        match self {
            CompactColumn::Narrow(c) => c.bytes(),
            CompactColumn::Wide(c) => c.bytes(),
        }
    }

    /// The column's raw bytes (native order), for the cache.
    pub fn raw(&self) -> &[u8] {
        fn bytes_of<T: Plain>(v: &[T]) -> &[u8] {
            // SAFETY: plain integers have no padding and every byte is initialised.
            unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
        }
        match self {
            CompactColumn::Narrow(c) => bytes_of(c),
            CompactColumn::Wide(c) => bytes_of(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map_of(bytes: &[u8]) -> Arc<memmap2::Mmap> {
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, bytes).unwrap();
        // SAFETY: a private temporary file nobody else writes.
        Arc::new(unsafe { memmap2::Mmap::map(&f).unwrap() })
    }

    #[test]
    fn classes_take_two_bytes_while_they_fit() {
        let c = CompactColumn::from_vec(vec![0, 7, 65535, 3]);
        assert!(c.is_narrow());
        assert_eq!(c.bytes(), 8);
        assert_eq!(c.iter().collect::<Vec<_>>(), vec![0, 7, 65535, 3]);
        assert_eq!(
            (c.get(2), c.try_get(4), c.max()),
            (65535, None, Some(65535))
        );
        let w = CompactColumn::from_vec(vec![0, 65536, 2]);
        assert!(!w.is_narrow());
        assert_eq!(w.iter().collect::<Vec<_>>(), vec![0, 65536, 2]);
        assert_eq!(
            (w.get(1), w.try_get(2), w.max()),
            (65536, Some(2), Some(65536))
        );
        assert_eq!(CompactColumn::default().max(), None);
    }

    #[test]
    fn a_mapped_column_reads_the_bytes_and_copies_on_write() {
        let vals: Vec<u32> = vec![7, 8, 9];
        let mut bytes = vec![0u8; 8];
        for v in &vals {
            bytes.extend_from_slice(&v.to_ne_bytes());
        }
        let map = map_of(&bytes);
        let mut c = Column::<u32>::mapped(&map, 8, 3).unwrap();
        assert!(c.is_mapped());
        assert_eq!(&*c, &vals[..]);
        assert_eq!(c.bytes(), 12);
        c[1] = 80;
        assert!(!c.is_mapped());
        assert_eq!(&*c, &[7, 80, 9]);
        // The map is untouched.
        assert_eq!(&*Column::<u32>::mapped(&map, 8, 3).unwrap(), &vals[..]);
    }

    #[test]
    fn out_of_range_or_misaligned_is_refused() {
        let map = map_of(&[0u8; 32]);
        assert!(Column::<u64>::mapped(&map, 0, 4).is_some());
        assert!(Column::<u64>::mapped(&map, 8, 4).is_none());
        assert!(Column::<u64>::mapped(&map, 4, 1).is_none());
        assert!(Column::<u32>::mapped(&map, usize::MAX - 2, 1).is_none());
        assert!(Column::<u32>::mapped(&map, 0, usize::MAX / 2).is_none());
    }
}
