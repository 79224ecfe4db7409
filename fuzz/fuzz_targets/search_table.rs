#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mnp_fuzz::search_table::run(data));
