//! What each write sends and how each read is checked, inside the timed loop.

use std::io;

use crate::data::pattern::IoOp;

/// What the data of each operation is and how reads are checked. The default
/// ([`NoCheck`]) sends pool slices and checks nothing, at no cost; verification
/// modes (-V, -+d) supply their own.
pub trait DataCheck {
    /// The bytes a write sends.
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8];
    /// Checks what a read returned; the error says what differs and where.
    fn check_read(&mut self, op: &IoOp, data: &[u8]) -> io::Result<()>;
}

/// Writes from the pool, checks nothing.
pub struct NoCheck;

impl DataCheck for NoCheck {
    #[inline(always)]
    fn write_data<'a>(&'a mut self, op: &IoOp, pool: &'a [u8]) -> &'a [u8] {
        &pool[op.source..op.source + op.len]
    }

    #[inline(always)]
    fn check_read(&mut self, _op: &IoOp, _data: &[u8]) -> io::Result<()> {
        Ok(())
    }
}
