//! `ioz history trend` and `ioz history regressions`.

use std::path::Path;

use crate::cli::{Selection, TrendRequest};
use crate::error::Exit;

pub(crate) fn trend(_dir: &Path, _request: TrendRequest) -> Exit {
    Exit::Usage
}

pub(crate) fn regressions(_dir: &Path, _s: &Selection, _fail: bool, _band: f64) -> Exit {
    Exit::Usage
}
