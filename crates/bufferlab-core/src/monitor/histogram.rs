//! A histogram of durations in nanoseconds for percentiles, with the bucket layout of
//! HdrHistogram (G. Tene, "HdrHistogram: A High Dynamic Range Histogram",
//! http://hdrhistogram.org/) at 2 significant digits, lowest discernible value 1, and its
//! quantile rule, but holding counts only for the range of values actually recorded.
//!
//! The layout: values below 256 have a slot each; above, each power of two
//! [2^(b+7), 2^(b+8)) is split into 128 slots of width 2^b, so a value is known within
//! 1/128 (< 1 %). Slot `i` of that layout is the same slot as in the `hdrhistogram` crate's
//! `Histogram::<u32>::new(2)`, and [`Histogram::value_at_quantile`] and [`Histogram::max`]
//! return what that crate returns for the same records (a test below checks it against the
//! crate on random samples), so reports are byte-identical to the earlier HDR histograms.
//!
//! Why not the crate's histogram: it holds every slot from 0 to the largest value recorded,
//! and grows by doubling its vector, so a flow's one-way delay histogram (values around
//! 25 ms, slot ~2400) took ~10-19 KB, although a flow's delays span a few hundred slots at
//! most. Here a histogram holds one zero count and a window of slots from the smallest to the
//! largest non-zero value recorded, grown in small steps: a few hundred bytes per flow or port
//! (docs/performance.md, "Memory per flow and cost per packet at scale").
//!
//! A histogram starts as a sorted list of the slots it used (4 bytes a slot) and becomes a
//! window only when the list would be larger than an 8-bit window over them: an access
//! link's sojourns over the bench's 20 s span ~800 slots of which ~17 are used (one, two,
//! three transmission times and a rare long wait).
//!
//! A window's counts start as 8-bit. A slot that would pass 255 keeps its low 8 bits in the window and
//! its multiples of 256 in a short sorted list of carries beside it (slot, 16-bit carry), as
//! long as that list is smaller than the window widened to 16 bits would be; then the window
//! widens to 16 bits, and to 32 bits the first time a slot would pass 65 535. Over a few
//! seconds at 10 000 flows most histograms (an access link's sojourns, a flow's delays) never
//! pass 255 in a slot; over the bench's 20 s a few slots of most of them do (the sojourns of a
//! packet behind one or two others of a burst), and the carries keep their windows at one
//! byte a slot (docs/performance.md, "Packets by handle" and "What a flow holds after the
//! report is streamed", "at the bench's 20 s"). Counts saturate at `u32::MAX` as the crate's
//! `u32` histogram does.

/// log2 of the slots per half power of two (128 slots: 2 significant digits).
const HALF_MAG: u32 = 7;
const HALF: u64 = 1 << HALF_MAG;
/// Values below this have a slot each (bucket 0 of the HDR layout).
const UNIT_RANGE: u64 = 2 * HALF;
/// Slots added beyond the one needed when the window grows (fewer reallocations as a
/// maximum creeps up; 64 bytes).
const SLACK: usize = 16;

/// The slot index of `v` in the HDR layout.
#[inline]
fn index_of(v: u64) -> usize {
    if v < UNIT_RANGE {
        v as usize
    } else {
        let b = 63 - v.leading_zeros() - HALF_MAG;
        (b as usize) * HALF as usize + (v >> b) as usize
    }
}

/// The bucket (log2 of the slot width) of slot `i`.
#[inline]
fn bucket_of_index(i: usize) -> u32 {
    ((i as u64 >> HALF_MAG) as u32).saturating_sub(1)
}

/// The smallest value of slot `i`.
#[inline]
fn value_of(i: usize) -> u64 {
    let b = bucket_of_index(i);
    let sub = if i < UNIT_RANGE as usize {
        i as u64
    } else {
        (i as u64 & (HALF - 1)) + HALF
    };
    sub << b
}

/// The largest value in the slot of `v` (saturating at `u64::MAX`).
#[inline]
fn highest_equivalent(v: u64) -> u64 {
    if v == u64::MAX {
        return u64::MAX;
    }
    let i = index_of(v);
    let b = bucket_of_index(i);
    let lowest = (v >> b) << b;
    lowest.saturating_add(1 << b) - 1
}

#[inline]
fn lowest_equivalent(v: u64) -> u64 {
    let b = bucket_of_index(index_of(v));
    (v >> b) << b
}

/// The counts: a sorted list of the slots used while it is smaller than a window of them
/// would be, then a window of 8-bit counts until one would overflow, then 16-bit, then 32-bit.
#[derive(Clone, Debug)]
enum Counts {
    /// The slots recorded so far, sorted, each as `slot << 16 | count` (16-bit count).
    Sparse(Vec<u32>),
    Tiny(Vec<u8>),
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Default for Counts {
    fn default() -> Self {
        Counts::Sparse(Vec::new())
    }
}

impl Counts {
    #[inline]
    fn len(&self) -> usize {
        match self {
            Counts::Tiny(v) => v.len(),
            Counts::Narrow(v) => v.len(),
            Counts::Wide(v) => v.len(),
            Counts::Sparse(_) => 0,
        }
    }

    /// Adds `n` to slot `k` of the window (which must hold it). False, with nothing changed,
    /// when an 8-bit slot would pass 255: the histogram then carries it
    /// ([`Histogram::carry`]).
    #[inline(always)]
    fn add(&mut self, k: usize, n: u32) -> bool {
        match self {
            Counts::Tiny(v) => {
                let sum = v[k] as u32 + n;
                if sum <= u8::MAX as u32 {
                    v[k] = sum as u8;
                    return true;
                }
                return false;
            }
            Counts::Narrow(v) => {
                let sum = v[k] as u32 + n;
                if sum <= u16::MAX as u32 {
                    v[k] = sum as u16;
                    return true;
                }
            }
            Counts::Wide(v) => {
                v[k] = v[k].saturating_add(n);
                return true;
            }
            Counts::Sparse(_) => unreachable!("a sorted list has no window"),
        }
        self.widen();
        self.add(k, n)
    }

    /// 16-bit counts become 32-bit (the same values, the same capacity in slots).
    #[cold]
    #[inline(never)]
    fn widen(&mut self) {
        if let Counts::Narrow(v) = self {
            let mut w = Vec::with_capacity(v.capacity());
            w.extend(v.iter().map(|&c| u32::from(c)));
            *self = Counts::Wide(w);
        }
    }

    fn get(&self, k: usize) -> u64 {
        match self {
            Counts::Tiny(v) => v[k] as u64,
            Counts::Narrow(v) => v[k] as u64,
            Counts::Wide(v) => v[k] as u64,
            Counts::Sparse(_) => unreachable!("a sorted list has no window"),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Counts::Tiny(v) => v.capacity(),
            Counts::Narrow(v) => v.capacity() * std::mem::size_of::<u16>(),
            Counts::Wide(v) => v.capacity() * std::mem::size_of::<u32>(),
            Counts::Sparse(v) => v.capacity() * std::mem::size_of::<u32>(),
        }
    }

    /// Extends a window that starts at slot `*start` to hold slots `lo ..= hi`, with `slack`
    /// more on the growing side.
    fn cover(&mut self, start: &mut usize, lo: usize, hi: usize, slack: usize) {
        match self {
            Counts::Tiny(v) => cover_window(v, start, lo, hi, slack),
            Counts::Narrow(v) => cover_window(v, start, lo, hi, slack),
            Counts::Wide(v) => cover_window(v, start, lo, hi, slack),
            Counts::Sparse(_) => unreachable!("a sorted list has no window"),
        }
    }
}

/// Extends the window `v` (slots `*start ..`) to hold slots `lo ..= hi` (with `slack` more on
/// the growing side).
fn cover_window<T: Copy + Default>(
    v: &mut Vec<T>,
    start: &mut usize,
    lo: usize,
    hi: usize,
    slack: usize,
) {
    if v.is_empty() {
        let lo = lo.max(1);
        *start = lo;
        *v = Vec::with_capacity(hi + 1 - lo + slack);
        v.resize(hi + 1 - lo, T::default());
        return;
    }
    let end = *start + v.len();
    if lo < *start {
        let new_lo = lo.saturating_sub(slack).max(1);
        let extra = *start - new_lo;
        let keep_end = end.max(hi + 1);
        let mut w = Vec::with_capacity(keep_end - new_lo);
        w.resize(extra, T::default());
        w.extend_from_slice(v);
        w.resize(keep_end - new_lo, T::default());
        *v = w;
        *start = new_lo;
    } else if hi >= end {
        let new_len = hi + 1 - *start;
        v.reserve_exact(new_len + slack - v.len());
        v.resize(new_len, T::default());
    }
}

/// Adds `n` to slot `i` of the sorted list `e` and says where it is; None, with nothing
/// changed, when the count would pass 65 535 or a new entry would make the list (4 bytes a
/// slot) larger than an 8-bit window over its slots.
fn sparse_add(e: &mut Vec<u32>, i: usize, n: u32) -> Option<usize> {
    let slot = i as u32;
    match e.binary_search_by_key(&slot, |&x| x >> 16) {
        Ok(j) => {
            let c = (e[j] & 0xffff).saturating_add(n);
            if n > u16::MAX as u32 || c > u16::MAX as u32 {
                return None;
            }
            e[j] = slot << 16 | c;
            Some(j)
        }
        Err(j) => {
            if n > u16::MAX as u32 {
                return None;
            }
            let first = e.first().map_or(slot, |&x| (x >> 16).min(slot));
            let last = e.last().map_or(slot, |&x| (x >> 16).max(slot));
            if 4 * (e.len() + 1) > (last - first + 1) as usize + SLACK {
                return None;
            }
            if e.len() == e.capacity() {
                e.reserve_exact(4.max(e.len() / 2));
            }
            e.insert(j, slot << 16 | n);
            Some(j)
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// Records of the value 0 (slot 0).
    zeros: u32,
    /// Slot index of `counts[0]` (while the counts are a sorted list: the place in it of the
    /// slot recorded last, tried first at the next record). At least 1 when `counts` is a
    /// non-empty window; below 2^16, the
    /// last slot of a u64 being 7 423: 32 bits keep the histogram at 64 bytes with its
    /// carries, one cache line).
    lo: u32,
    /// Counts of slots `lo .. lo + counts.len()`.
    counts: Counts,
    /// While the counts are 8-bit: the slots that passed 255, sorted, each as
    /// `slot << 16 | carry`, the slot's count being its 8-bit count + 256 x carry; None (most
    /// histograms) when no slot did. Boxed: 8 bytes in the histogram where a `Vec` is 24.
    #[allow(clippy::box_collection)]
    carries: Option<Box<Vec<u32>>>,
    total: u64,
    /// The largest value recorded (0 if none or only zeros).
    max: u64,
}

impl Histogram {
    pub fn new() -> Self {
        Self::default()
    }

    /// A histogram with room for every value up to `high` (recording them never allocates);
    /// it still grows past them.
    /// Its counts are 32-bit from the start, so that no count ever widens them.
    pub fn with_max(high: u64) -> Self {
        let mut h = Self {
            counts: Counts::Wide(Vec::new()),
            ..Self::default()
        };
        h.cover(1, index_of(high.max(1)), 0);
        h
    }

    /// Extends the window to hold slots `lo ..= hi` (with `slack` more on the growing side).
    #[cold]
    fn cover(&mut self, lo: usize, hi: usize, slack: usize) {
        let mut start = self.lo as usize;
        self.counts.cover(&mut start, lo, hi, slack);
        self.lo = start as u32;
    }

    /// Records `n` occurrences of `v`.
    #[inline]
    pub fn record_n(&mut self, v: u64, n: u32) {
        if v == 0 {
            self.zeros = self.zeros.saturating_add(n);
        } else {
            let i = index_of(v);
            if let Counts::Sparse(_) = self.counts {
                self.sparse_record(i, n);
                self.max = self.max.max(v);
                self.total = self.total.saturating_add(n as u64);
                return;
            }
            let k = i.wrapping_sub(self.lo as usize);
            if k >= self.counts.len() {
                self.cover(i, i, SLACK);
            }
            let k = i - self.lo as usize;
            if !self.counts.add(k, n) {
                self.carry(k, n);
            }
            self.max = self.max.max(v);
        }
        self.total = self.total.saturating_add(n as u64);
    }

    /// Adds `n` to slot `i` of the sorted list, or makes it a window. Out of line, so that
    /// the window's path stays as short as it was.
    #[inline(never)]
    fn sparse_record(&mut self, i: usize, n: u32) {
        let Counts::Sparse(e) = &mut self.counts else {
            return;
        };
        // the slot recorded last and the one after it first (`lo` is the place of the last
        // in the list while sparse): the packets of a burst wait one, two, three
        // transmission times
        let h = self.lo as usize;
        for j in [h, h + 1] {
            if let Some(x) = e.get_mut(j) {
                if *x >> 16 == i as u32 && n <= 0xffff - (*x & 0xffff) {
                    *x += n;
                    self.lo = j as u32;
                    return;
                }
            }
        }
        match sparse_add(e, i, n) {
            Some(j) => self.lo = j as u32,
            None => self.densify(i, n),
        }
    }

    /// The sorted list, with `n` more in slot `i`, becomes a window: 8-bit counts, with
    /// carries for the slots past 255 while they take less room than 16-bit counts, else
    /// 16-bit or 32-bit counts.
    #[cold]
    #[inline(never)]
    fn densify(&mut self, i: usize, n: u32) {
        let Counts::Sparse(e) = &self.counts else {
            return;
        };
        let first = e.first().map_or(i, |&x| (x >> 16) as usize);
        let last = e.last().map_or(i, |&x| (x >> 16) as usize);
        let (lo, hi) = (first.min(i), last.max(i));
        let mut full = vec![0u32; hi + 1 - lo];
        for &x in e {
            full[(x >> 16) as usize - lo] = x & 0xffff;
        }
        full[i - lo] = full[i - lo].saturating_add(n);
        self.lo = lo as u32;
        let cap = full.len() + SLACK;
        let over = full.iter().filter(|&&c| c > u8::MAX as u32).count();
        let carry_max = u8::MAX as u32 + ((u16::MAX as u32) << 8);
        if full.iter().all(|&c| c <= carry_max) && (over == 0 || 4 * over + 24 <= cap) {
            let mut low = Vec::with_capacity(cap);
            low.extend(full.iter().map(|&c| (c & 0xff) as u8));
            let carries: Vec<u32> = (lo..)
                .zip(&full)
                .filter(|&(_, &c)| c > u8::MAX as u32)
                .map(|(slot, &c)| (slot as u32) << 16 | c >> 8)
                .collect();
            self.carries = (!carries.is_empty()).then(|| Box::new(carries));
            self.counts = Counts::Tiny(low);
        } else if full.iter().all(|&c| c <= u16::MAX as u32) {
            let mut w = Vec::with_capacity(cap);
            w.extend(full.iter().map(|&c| c as u16));
            self.counts = Counts::Narrow(w);
        } else {
            full.reserve_exact(SLACK);
            self.counts = Counts::Wide(full);
        }
    }

    /// Adds `n` to 8-bit slot `k`, which would pass 255: its multiples of 256 go to the
    /// carries, or, when the carries would take more room than 16-bit counts, the window
    /// widens (to 32 bits if a count passes 65 535).
    #[cold]
    #[inline(never)]
    fn carry(&mut self, k: usize, n: u32) {
        let Counts::Tiny(v) = &mut self.counts else {
            unreachable!("only 8-bit counts carry")
        };
        let slot = (self.lo as usize + k) as u32;
        let carries = self.carries.get_or_insert_with(Default::default);
        let at = carries.binary_search_by_key(&slot, |&e| e >> 16);
        let sum = v[k] as u64 + n as u64;
        let carried = match at {
            Ok(j) => (carries[j] & 0xffff) as u64,
            Err(_) => 0,
        } + (sum >> 8);
        // room of the carries (4 bytes an entry and the box's 24 bytes) against the
        // window's extra bytes at 16 bits
        let entries = carries.len() + usize::from(at.is_err());
        if carried > u16::MAX as u64 || 4 * entries + 24 > v.capacity() {
            self.unfold();
            let done = self.counts.add(k, n);
            debug_assert!(done);
            return;
        }
        v[k] = (sum & 0xff) as u8;
        let e = slot << 16 | carried as u32;
        match at {
            Ok(j) => carries[j] = e,
            Err(j) => {
                if carries.len() == carries.capacity() {
                    carries.reserve_exact(4.max(carries.len() / 2));
                }
                carries.insert(j, e);
            }
        }
    }

    /// 8-bit counts and their carries become 16-bit counts, or 32-bit ones if a count
    /// passes 65 535 (the same values, the same capacity in slots).
    #[cold]
    fn unfold(&mut self) {
        let Counts::Tiny(v) = &self.counts else {
            return;
        };
        let carries = self.carries.take().map(|b| *b).unwrap_or_default();
        let mut full: Vec<u32> = Vec::with_capacity(v.capacity());
        full.extend(v.iter().map(|&c| u32::from(c)));
        for e in &carries {
            full[(e >> 16) as usize - self.lo as usize] += (e & 0xffff) << 8;
        }
        if full.iter().all(|&c| c <= u16::MAX as u32) {
            let mut w = Vec::with_capacity(full.capacity());
            w.extend(full.iter().map(|&c| c as u16));
            self.counts = Counts::Narrow(w);
        } else {
            self.counts = Counts::Wide(full);
        }
    }

    /// The count of window slot `k`, its carry found from `*c` on (carries are sorted and
    /// slots read in order).
    #[inline]
    fn count_from(&self, k: usize, c: &mut usize) -> u64 {
        let mut n = self.counts.get(k);
        if let Some(carries) = &self.carries {
            let slot = (self.lo as usize + k) as u32;
            while *c < carries.len() && carries[*c] >> 16 < slot {
                *c += 1;
            }
            if *c < carries.len() && carries[*c] >> 16 == slot {
                n += ((carries[*c] & 0xffff) as u64) << 8;
            }
        }
        n
    }

    #[inline]
    pub fn record(&mut self, v: u64) {
        self.record_n(v, 1);
    }

    pub fn len(&self) -> u64 {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The value at quantile `q` (HdrHistogram's rule): the highest value of the first slot
    /// at which the running count reaches ceil(q * total) (at least 1); for q = 0 the lowest
    /// value of the first non-empty slot; 0 when empty.
    pub fn value_at_quantile(&self, q: f64) -> u64 {
        let q = if q > 1.0 { 1.0 } else { q };
        let target = ((q * self.total as f64).ceil() as u64).max(1);
        let finish = |i: usize| {
            let v = value_of(i);
            if q == 0.0 {
                lowest_equivalent(v)
            } else {
                highest_equivalent(v)
            }
        };
        let mut run = self.zeros as u64;
        if run >= target {
            return finish(0);
        }
        if let Counts::Sparse(e) = &self.counts {
            for &x in e {
                run += (x & 0xffff) as u64;
                if run >= target {
                    return finish((x >> 16) as usize);
                }
            }
            return 0;
        }
        let mut c = 0;
        for k in 0..self.counts.len() {
            run += self.count_from(k, &mut c);
            if run >= target {
                return finish(self.lo as usize + k);
            }
        }
        0
    }

    /// The highest value equivalent to the largest recorded (0 if none but zeros).
    pub fn max(&self) -> u64 {
        if self.max == 0 {
            0
        } else {
            highest_equivalent(self.max)
        }
    }

    /// Heap bytes held (for the memory accounting in docs/performance.md).
    pub fn heap_bytes(&self) -> usize {
        self.counts.heap_bytes()
            + self
                .carries
                .as_ref()
                .map_or(0, |c| std::mem::size_of::<Vec<u32>>() + 4 * c.capacity())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64* (Vigna 2016): a fixed, dependency-free stream for the samples.
    struct Xs(u64);
    impl Xs {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A histogram that starts as a window (8-bit counts), not as a sorted list.
    fn dense() -> Histogram {
        Histogram {
            counts: Counts::Tiny(Vec::new()),
            ..Histogram::default()
        }
    }

    fn reference() -> hdrhistogram::Histogram<u32> {
        hdrhistogram::Histogram::new(2).unwrap()
    }

    fn same(h: &Histogram, r: &hdrhistogram::Histogram<u32>, what: &str) {
        for q in [0.0, 0.001, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0, 1.5] {
            assert_eq!(
                h.value_at_quantile(q),
                r.value_at_quantile(q),
                "{what}: quantile {q}"
            );
        }
        assert_eq!(h.max(), r.max(), "{what}: max");
        assert_eq!(h.len(), r.len(), "{what}: count");
    }

    // ---- the layout is HdrHistogram's ----
    #[test]
    fn slots_match_the_hdr_layout() {
        let r = reference();
        for v in (0..5000u64).chain([1 << 20, (1 << 20) + 12345, 25_000_000, u64::MAX / 3]) {
            assert_eq!(highest_equivalent(v), r.highest_equivalent(v), "value {v}");
            assert_eq!(lowest_equivalent(v), r.lowest_equivalent(v), "value {v}");
            assert_eq!(value_of(index_of(v)), r.lowest_equivalent(v), "value {v}");
        }
    }

    // ---- quantiles and maxima equal the hdrhistogram crate's on random samples ----
    #[test]
    fn quantiles_match_the_hdrhistogram_crate() {
        let mut rng = Xs(0x9E37_79B9_7F4A_7C15);
        for case in 0..400 {
            // half start as a sorted list (the default), half as a window
            let mut h = if case % 2 == 0 {
                Histogram::new()
            } else {
                dense()
            };
            let mut r = reference();
            // delays around a base, sojourns from zero up, and wide spreads
            let base = [0u64, 300, 24_000_000, 1_000][case / 2 % 4];
            let spread = [10u64, 1_000, 5_000_000, 1 << 40][case / 8 % 4];
            let n = 1 + (case / 2 * 37) % 3000;
            for _ in 0..n {
                let v = if rng.uniform() < 0.2 {
                    0
                } else {
                    base + (rng.uniform() * spread as f64) as u64
                };
                h.record(v);
                r.record(v).unwrap();
            }
            // counted zeros added in one go, as QueueStats does
            h.record_n(0, 5);
            r.record_n(0, 5).unwrap();
            same(&h, &r, &format!("case {case}"));
        }
    }

    #[test]
    fn empty_and_zero_only_histograms_match() {
        let h = Histogram::new();
        let r = reference();
        same(&h, &r, "empty");
        let mut h = Histogram::new();
        let mut r = reference();
        h.record_n(0, 3);
        r.record_n(0, 3).unwrap();
        same(&h, &r, "zeros");
    }

    // ---- the window grows downwards and upwards without losing counts ----
    #[test]
    fn window_grows_both_ways() {
        let mut h = Histogram::new();
        let mut r = reference();
        for v in [50_000u64, 40_000_000, 3, 700, 1 << 33, 1] {
            h.record(v);
            r.record(v).unwrap();
            same(&h, &r, &format!("after {v}"));
        }
    }

    // ---- a reserved histogram does not allocate for values within its range ----
    #[test]
    fn reserved_window_covers_its_range() {
        let mut h = Histogram::with_max(1_000_000_000);
        let cap = h.heap_bytes();
        for v in [1u64, 999, 123_456, 1_000_000_000] {
            h.record(v);
        }
        assert_eq!(h.heap_bytes(), cap);
    }

    // ---- 8-bit counts widen to 16 bits without losing a record ----
    #[test]
    fn counts_widen_past_255() {
        let mut h = dense();
        let mut r = reference();
        for (v, n) in [
            (1_000u64, 200u32),
            (1_000, 55),
            (5, 255),
            (1_000, 1),
            (7, 300),
        ] {
            h.record_n(v, n);
            r.record_n(v, n).unwrap();
            same(&h, &r, &format!("after {n} x {v}"));
        }
        // a wide window (slots 1 to ~520): two slots past 255 are carried, not widened
        assert!(matches!(h.counts, Counts::Tiny(_)));
        assert_eq!(h.carries.as_deref().map(Vec::len), Some(2));
        let mut small = dense();
        small.record_n(1_000, 255);
        small.record_n(3, 255);
        assert!(matches!(small.counts, Counts::Tiny(_)));
        assert!(small.carries.is_none());
        // a narrow window (17 slots): its carries would take more room than 16-bit counts
        let mut narrow = dense();
        let mut r = reference();
        narrow.record_n(1_000, 200);
        narrow.record_n(1_000, 56);
        r.record_n(1_000, 256).unwrap();
        assert!(matches!(narrow.counts, Counts::Narrow(_)));
        same(&narrow, &r, "narrow window");
        // straight from 8 to 32 bits when one record passes 65 535 x 256
        let mut big = dense();
        big.record(2);
        big.record_n(2, 70_000_000);
        assert!(matches!(big.counts, Counts::Wide(_)));
        assert!(big.carries.is_none());
        assert_eq!(big.value_at_quantile(1.0), 2);
        assert_eq!(big.len(), 70_000_001);
    }

    // ---- carried counts: many slots past 255 in a wide window, in any order ----
    #[test]
    fn carried_counts_match_the_hdrhistogram_crate() {
        let mut rng = Xs(0x2545_F491_4F6C_DD1D);
        let mut carried = 0;
        for case in 0..40 {
            let mut h = dense();
            let mut r = reference();
            // a wide window first (slots ~1 to ~2 300), then hot slots in random order
            h.record(1);
            r.record(1).unwrap();
            h.record(20_000_000);
            r.record(20_000_000).unwrap();
            let hot = 1 + case % 30;
            for _ in 0..(case + 1) * 3_000 {
                let v = 1 + (rng.uniform() * hot as f64) as u64 * 12_345;
                let n = 1 + (rng.uniform() * [1.0, 40.0, 3_000.0][case % 3]) as u32;
                h.record_n(v, n);
                r.record_n(v, n).unwrap();
            }
            same(&h, &r, &format!("case {case}"));
            // the heaviest cases pass 65 535 x 256 in a slot and widen to 32 bits
            if let Some(c) = h.carries.as_deref() {
                assert!(matches!(h.counts, Counts::Tiny(_)), "case {case}: 8-bit");
                assert!(
                    c.windows(2).all(|w| w[0] >> 16 < w[1] >> 16),
                    "case {case}: sorted"
                );
                carried += 1;
            }
        }
        assert!(carried >= 30, "{carried} of 40 cases carried");
        // carries and then a widening keep every count
        let mut h = dense();
        let mut r = reference();
        h.record(1);
        r.record(1).unwrap();
        h.record(300);
        r.record(300).unwrap();
        for v in 1..300u64 {
            h.record_n(v, 300);
            r.record_n(v, 300).unwrap();
        }
        assert!(matches!(h.counts, Counts::Narrow(_)));
        assert!(h.carries.is_none());
        same(&h, &r, "widened after carrying");
    }

    // ---- 16-bit counts widen without losing a record ----
    #[test]
    fn counts_widen_past_65535() {
        let mut h = dense();
        let mut r = reference();
        for (v, n) in [
            (1_000u64, 60_000u32),
            (1_000, 5_535),
            (2_000, 3),
            (1_000, 1),
            (9, 70_000),
        ] {
            h.record_n(v, n);
            r.record_n(v, n).unwrap();
            same(&h, &r, &format!("after {n} x {v}"));
        }
        assert!(matches!(h.counts, Counts::Wide(_)));
        let mut small = dense();
        small.record_n(1_000, 65_535);
        assert!(matches!(small.counts, Counts::Narrow(_)));
    }

    // ---- a sorted list while few slots are used, then a window ----
    #[test]
    fn few_slots_stay_a_sorted_list() {
        let mut h = Histogram::new();
        let mut r = reference();
        // sojourns of an access link: a few multiples of a transmission time, one outlier
        for (v, n) in [
            (12_000u64, 300u32),
            (24_000, 40),
            (1, 2),
            (5_000_000, 1),
            (12_000, 70_000),
        ] {
            h.record_n(v, n);
            r.record_n(v, n).unwrap();
            same(&h, &r, &format!("after {n} x {v}"));
        }
        // 12 000 passed 65 535: a window now, 8-bit with 12 000's carry (70 300 < 65 535 x 256)
        assert!(matches!(h.counts, Counts::Tiny(_)));
        assert!(h.carries.is_some());
        let mut s = Histogram::new();
        for v in [12_000u64, 24_000, 36_000, 5_000_000] {
            s.record_n(v, 200);
        }
        assert!(matches!(s.counts, Counts::Sparse(_)));
        assert_eq!(s.heap_bytes(), 16);
        // slots close together: a window once the list would be larger
        let mut d = Histogram::new();
        let mut r = reference();
        for v in 1_000..1_100u64 {
            d.record(v);
            r.record(v).unwrap();
        }
        assert!(matches!(d.counts, Counts::Tiny(_)), "{:?}", d.counts);
        same(&d, &r, "dense after sparse");
    }

    // ---- a histogram is 64 bytes (one a port and one a flow, at 10 000 flows) ----
    #[test]
    fn histogram_is_64_bytes() {
        assert_eq!(std::mem::size_of::<Histogram>(), 64);
    }

    // ---- narrow ranges cost little ----
    #[test]
    fn delays_around_25_ms_take_under_2_kb() {
        let mut h = dense();
        for k in 0..10_000u64 {
            h.record(24_000_000 + (k * 7919) % 10_000_000);
        }
        assert!(h.heap_bytes() < 2048, "{} bytes", h.heap_bytes());
    }
}
