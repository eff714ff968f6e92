fn main() { simt_passes::hello(); let c = inkwell::context::Context::create(); let _m = c.create_module("x"); println!("ok"); }
