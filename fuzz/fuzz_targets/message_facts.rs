#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| mnp_fuzz::message_facts::run(data));
