//! Statistics over the samples a run measured: plain functions of numbers
//! (imports `model` only), used by `report` and `app`.

pub mod summary;
