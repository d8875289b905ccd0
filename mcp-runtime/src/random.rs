//! Random ids (of sessions, streams, tasks, instances, parked requests): bytes from the operating
//! system's CSPRNG, as lowercase hex. Unguessable, so that an id grants nothing by being
//! guessed; the generator failing is not recoverable, and no predictable id is ever handed out.

/// `N` random bytes, as `2 * N` hex digits.
pub(crate) fn random_id<const N: usize>() -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut buffer = [0u8; N];
    if getrandom::fill(&mut buffer).is_err() {
        panic!("the operating system's random number generator failed");
    }
    let mut id = String::with_capacity(2 * buffer.len());
    for byte in buffer.iter() {
        id.push(char::from(HEX[usize::from(byte >> 4)]));
        id.push(char::from(HEX[usize::from(byte & 0xf)]));
    }
    id
}

#[cfg(test)]
mod tests {
    use super::random_id;

    #[test]
    fn ids_are_hex_of_the_length_asked_and_differ() {
        let (a, b) = (random_id::<16>(), random_id::<16>());
        assert_eq!((a.len(), random_id::<8>().len()), (32, 16));
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }
}
