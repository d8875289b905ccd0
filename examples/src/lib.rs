//! What the example binaries share: the notebook of `notes-server`, which the fuzz targets
//! drive too, its board (an MCP App), its tool that imports notes from another notes server, the
//! options of a server that runs as several instances, and the tools of `bench-server`.

pub mod bench;
pub mod bench_tools;
pub mod board;
pub mod import;
pub mod instance;
pub mod notes;
