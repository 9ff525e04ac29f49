//! What each write sends and how each read is checked, inside the timed loop.

use std::io;

use crate::data::pattern::IoOp;

/// What the data of each operation is and how reads are checked. [`NoCheck`]
/// sends pool slices as they are and checks nothing, at no cost; the default
/// data stamps its blocks first (data::stamp), and verification modes (-V,
/// -+d) supply their own.
pub trait DataCheck {
    /// The bytes a write sends: from the pool (which a check may stamp just
    /// before the write) or from the check's own buffer.
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8];
    /// Checks what a read returned; the error says what differs and where.
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()>;
}

/// Writes from the pool, checks nothing.
pub struct NoCheck;

impl DataCheck for NoCheck {
    #[inline(always)]
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a mut [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }

    #[inline(always)]
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}
