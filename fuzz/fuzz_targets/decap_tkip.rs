//! TKIP decapsulation (whole MPDU and fragment paths) of arbitrary bytes: never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use wsec::cipher::tkip::TkipKey;
use wsec::cipher::Protection;

fuzz_target!(|data: &[u8]| {
    let k = TkipKey::new(&[9u8; 32]).unwrap();
    let mut out = Vec::new();
    let _ = k.decapsulate(data, &mut out);
    let _ = k.decapsulate_fragment(data);
    let _ = TkipKey::peek(data);
    if data.len() > 6 {
        let _ = k.verify_msdu_mic(
            &[1; 6],
            &[2; 6],
            data[0],
            &data[1..],
            wsec::cipher::tkip::MichaelDirection::of_frame(wsec::wire::FrameControl(0x0208)),
        );
    }
});
