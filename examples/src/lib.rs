//! What the example binaries share: the notebook of `notes-server`, which the fuzz targets
//! drive too, and the options of a server that runs as several instances.

pub mod instance;
pub mod notes;
