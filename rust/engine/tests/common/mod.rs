//! Helpers shared by the integration tests (and, by path, the perft bench and example).

pub mod perft;
