//! What the example binaries share: the notebook of `notes-server`, which the fuzz targets
//! drive too.

pub mod notes;
