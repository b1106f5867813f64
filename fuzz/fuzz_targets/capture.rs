//! The capture reader and radio-header stripping on arbitrary bytes: packets or one
//! error, never a panic, and memory bounded by MAX_RECORD.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::capture::{radio, CaptureReader};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = CaptureReader::new(std::io::Cursor::new(data)) {
        for p in r.take(10_000) {
            match p {
                Ok(p) => {
                    assert!(p.data.len() <= wsec::capture::MAX_RECORD);
                    if let Ok(m) = radio::mpdu(p.linktype, &p.data) {
                        let _ = wsec::wire::Header::new_checked(m.bytes);
                    }
                }
                Err(_) => break,
            }
        }
    }
    for lt in [105, 119, 127, 163, 192] {
        let _ = radio::mpdu(lt, data);
    }
});
