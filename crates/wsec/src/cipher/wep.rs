//! (being written by the TKIP/WEP helper)
