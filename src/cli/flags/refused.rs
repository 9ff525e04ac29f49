//! IOzone options ioz recognises but does not do yet: each is refused by
//! name, with what it is, so that no flag is ever silently ignored.

use super::Spelling::Plus;
use super::{Flag, Section};

pub(super) const SECTION: Section = Section {
    title: "IOzone options not supported yet (refused)",
    note: "",
    flags: &[
        Flag::not_supported(
            Plus('m'),
            "cluster mode, in ioz built with --features mpi only (docs/cluster.md)",
        ),
        Flag::not_supported(Plus('c'), "cluster client"),
        Flag::not_supported(Plus('h'), "cluster controlling host"),
        Flag::not_supported(Plus('i'), "cluster control port"),
        Flag::not_supported(Plus('s'), "silent cluster client"),
        Flag::not_supported(Plus('a'), "ignored IOzone option"),
        Flag::not_supported(Plus('b'), "ignored IOzone option"),
        Flag::not_supported(Plus('U'), "Windows-only option"),
    ],
};
