//! Rings of packet handles that grow by half when full, not double.
//!
//! A port's queue and wire start empty and grow to the most packets they hold at once
//! (`net/port.rs`). `VecDeque` doubles its buffer when full, so a ring holds up to twice its
//! high-water mark; at 10 000 flows (40 000 ports) that slack was about 0.1 KB a flow
//! (docs/performance.md, "What a flow holds"). Growing by half, at least four slots, keeps
//! the slack under half and the cost per push amortised constant; a run's results do not
//! depend on a ring's capacity. `Simulation::reserve_packet_room` sizes rings up front where
//! a run must not allocate (`tests/no_allocation.rs`).

use std::collections::VecDeque;

/// The fewest slots a ring grows by.
const MIN_GROWTH: usize = 4;

/// Appends `x` at the back, growing a full ring by half its length.
#[inline(always)]
pub fn push_back<T>(ring: &mut VecDeque<T>, x: T) {
    if ring.len() == ring.capacity() {
        grow(ring);
    }
    ring.push_back(x);
}

#[cold]
#[inline(never)]
fn grow<T>(ring: &mut VecDeque<T>) {
    ring.reserve_exact((ring.len() / 2).max(MIN_GROWTH));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_half_and_keeps_the_order() {
        let (mut r, mut reference) = (VecDeque::new(), VecDeque::new());
        let mut caps = vec![0];
        for i in 0..1000u32 {
            push_back(&mut r, i);
            reference.push_back(i);
            if i % 3 == 0 {
                assert_eq!(r.pop_front(), reference.pop_front());
            }
            if caps.last() != Some(&r.capacity()) {
                caps.push(r.capacity());
            }
        }
        assert!(r.iter().eq(reference.iter()));
        for w in caps.windows(2) {
            assert!(w[1] <= w[0] + (w[0] / 2).max(MIN_GROWTH) + 1, "{caps:?}");
        }
        assert!(
            r.capacity() < r.len() * 3 / 2 + MIN_GROWTH,
            "{} for {}",
            r.capacity(),
            r.len()
        );
    }
}
