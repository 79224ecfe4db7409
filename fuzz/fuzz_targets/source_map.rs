#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mnp_fuzz::source_map::run(data));
