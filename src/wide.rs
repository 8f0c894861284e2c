//! Division of the 128-bit values that tokens need (20 digits pass u64) by a 32-bit divisor,
//! as long division in 32-bit limbs: each step divides a u64, which wasm does natively, where
//! `u128 / u128` would pull in the compiler's generic 128-bit division (about 1 KiB of the
//! module, for the only two divisions the rules make: by 10 and by a chunk size).

/// `(value / divisor, value % divisor)`; `divisor` is never 0 (a chunk size or 10).
pub fn div_rem(value: u128, divisor: u32) -> (u128, u32) {
    let divisor = u64::from(divisor);
    let (mut quotient, mut rest) = (0u128, 0u64);
    for shift in [96, 64, 32, 0] {
        // rest < divisor < 2^32, so `rest << 32 | limb` fits u64.
        let part = rest << 32 | (value >> shift) as u64 & 0xFFFF_FFFF;
        quotient |= u128::from(part / divisor) << shift;
        rest = part % divisor;
    }
    (quotient, rest as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_divides_as_the_compiler_divides() {
        let values = [
            0,
            1,
            9,
            10,
            99,
            u128::from(u32::MAX),
            u128::from(u64::MAX),
            u128::from(u64::MAX) + 1,
            99_999_999_999_999_999_999,
            u128::MAX,
        ];
        let divisors = [1, 2, 3, 10, 100, 999_983, 1_000_000, u32::MAX];
        for value in values {
            for divisor in divisors {
                let expected = (value / u128::from(divisor), (value % u128::from(divisor)) as u32);
                assert_eq!(div_rem(value, divisor), expected, "{value} / {divisor}");
            }
        }
        // And a pseudo-random spread of both (an LCG: no dependency needed).
        let mut x: u128 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..10_000 {
            x = x.wrapping_mul(0x5851_F42D_4C95_7F2D_1405_7B7E_F767_814F).wrapping_add(1);
            let divisor = ((x >> 70) as u32).max(1) >> (x as u32 % 32);
            let divisor = divisor.max(1);
            assert_eq!(div_rem(x, divisor), (x / u128::from(divisor), (x % u128::from(divisor)) as u32));
        }
    }
}
