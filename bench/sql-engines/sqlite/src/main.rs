//! The same 50 M-row GROUP BY as dfprobe, over an SQLite virtual table (rusqlite, bundled
//! SQLite, read-only eponymous module): class as text, shallow and retained as integers.
use std::borrow::Cow;
use std::ffi::{c_int, CStr};
use std::marker::PhantomData;
use std::sync::OnceLock;
use std::time::Instant;

use rusqlite::vtab::{Context, Filters, IndexInfo, Module, VTab, VTabConnection, VTabCursor};
use rusqlite::{ffi, Connection, Result};

struct Data {
    class: Vec<u32>,
    names: Vec<String>,
}
static DATA: OnceLock<Data> = OnceLock::new();

#[repr(C)]
struct Tab {
    base: ffi::sqlite3_vtab,
}

unsafe impl<'vtab> VTab<'vtab> for Tab {
    type Aux = ();
    type Cursor = Cur<'vtab>;
    fn connect(
        _db: &mut VTabConnection,
        _aux: Option<&()>,
        _m: &[u8],
        _d: &[u8],
        _t: &[u8],
        _a: &[&[u8]],
    ) -> Result<(Cow<'static, CStr>, Self)> {
        Ok((
            Cow::Borrowed(c"CREATE TABLE x(class, shallow, retained)"),
            Tab {
                base: ffi::sqlite3_vtab::default(),
            },
        ))
    }
    fn best_index(&self, info: &mut IndexInfo) -> Result<bool> {
        info.set_estimated_cost(1e9);
        Ok(true)
    }
    fn open(&mut self) -> Result<Cur<'_>> {
        Ok(Cur {
            base: ffi::sqlite3_vtab_cursor::default(),
            row: 0,
            phantom: PhantomData,
        })
    }
}

#[repr(C)]
struct Cur<'vtab> {
    base: ffi::sqlite3_vtab_cursor,
    row: usize,
    phantom: PhantomData<&'vtab Tab>,
}

unsafe impl VTabCursor for Cur<'_> {
    fn filter(&mut self, _i: c_int, _s: Option<&str>, _a: &Filters<'_>) -> Result<()> {
        self.row = 0;
        Ok(())
    }
    fn next(&mut self) -> Result<()> {
        self.row += 1;
        Ok(())
    }
    fn eof(&self) -> bool {
        self.row >= DATA.get().unwrap().class.len()
    }
    fn column(&self, ctx: &mut Context, i: c_int) -> Result<()> {
        let d = DATA.get().unwrap();
        match i {
            0 => ctx.set_result(&d.names[d.class[self.row] as usize].as_str()),
            1 => ctx.set_result(&((self.row % 97) as i64 * 8)),
            _ => ctx.set_result(&((self.row % 1013) as i64 * 8)),
        }
    }
    fn rowid(&self) -> Result<i64> {
        Ok(self.row as i64)
    }
}

fn main() -> Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(50_000_000);
    let mut x: u64 = 0x9e3779b97f4a7c15;
    let class = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 5000) as u32
        })
        .collect();
    let names = (0..5000).map(|i| format!("com.acme.Class{i}")).collect();
    DATA.set(Data { class, names }).ok();
    let conn = Connection::open_in_memory()?;
    const M: Module<Tab> = Module::eponymous_only_module();
    conn.create_module(c"objects", &M, None)?;
    for _ in 0..2 {
        let t = Instant::now();
        let mut st = conn.prepare("SELECT class, count(*), sum(retained) FROM objects GROUP BY class ORDER BY 3 DESC LIMIT 10")?;
        let rows: Vec<(String, i64, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_>>()?;
        eprintln!(
            "group by: {:.3} s, {} rows",
            t.elapsed().as_secs_f64(),
            rows.len()
        );
    }
    Ok(())
}
