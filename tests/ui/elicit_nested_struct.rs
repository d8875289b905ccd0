use mcp_runtime::prelude::*;

struct Address {
    street: String,
}

#[derive(Elicit)]
struct Shipping {
    name: String,
    address: Address,
}

fn main() {}
