//! A large run's state on 2 MB pages (Linux's transparent huge pages). With thousands of
//! flows each event reads a few lines of each of several records (ports, packets, flows,
//! endpoints) spread over tens of megabytes. At 4 KB pages most of those reads also missed
//! the TLB, whose second-level entries (1 536 to 2 048 on today's x86 cores) cover 6 to 8 MB,
//! and the page walk came before the load and before the prefetches that should have hidden
//! it. With its state collapsed as below, d_10000 takes 0.90x the CPU time of 4 KB pages
//! (docs/performance.md, "Huge pages at 10 000 flows").
//!
//! Nothing is added to the resident set: only 2 MB stretches of private anonymous memory
//! whose every 4 KB page is already resident (`mincore`) are collapsed into huge pages
//! (`madvise(MADV_COLLAPSE)`, Linux 6.1; Documentation/admin-guide/mm/transhuge.rst), which
//! copies them in place. A kernel without it, or with transparent huge pages off, refuses,
//! and the run goes on as before. The pages hold the same bytes: no result changes.

/// The engine collapses the state once before the first event and again after 2^20, 2^21, ...
/// events, as a run's packets, wires and histograms grow to their working sizes (d_10000's
/// heap grows from 20 to 45 MB in its first second).
const AGAIN_FROM: u64 = 1 << 20;

/// 2 MB: a huge page on x86-64 and on arm64 with 4 KB base pages.
const HUGE: usize = 2 << 20;
const BASE: usize = 4096;

/// After `events` events of a large run: collapses what the run added since the last time,
/// when `events` is a power of two from AGAIN_FROM on (a scan of the process's mappings,
/// a few a run).
pub(crate) fn after_events(events: u64) {
    if events.is_power_of_two() && events >= AGAIN_FROM {
        collapse_resident();
    }
}

/// Collapses every fully resident, 2 MB-aligned stretch of the process's private anonymous
/// memory into huge pages; the bytes collapsed (0 where the system cannot).
pub(crate) fn collapse_resident() -> usize {
    let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else {
        return 0;
    };
    let mut collapsed = 0;
    for (start, end) in maps.lines().filter_map(private_anonymous) {
        let mut run: Option<(usize, usize)> = None;
        let mut at = start.next_multiple_of(HUGE);
        while at + HUGE <= end {
            if resident(at) {
                run = Some(run.map_or((at, at + HUGE), |(s, _)| (s, at + HUGE)));
            } else if let Some((s, e)) = run.take() {
                collapsed += collapse(s, e);
            }
            at += HUGE;
        }
        if let Some((s, e)) = run {
            collapsed += collapse(s, e);
        }
    }
    collapsed
}

/// The address range of a `/proc/self/maps` line that maps private, writable, anonymous
/// memory (the heap, or memory the allocator mapped), None for any other.
fn private_anonymous(line: &str) -> Option<(usize, usize)> {
    let mut fields = line.split_ascii_whitespace();
    let (range, perms) = (fields.next()?, fields.next()?);
    let (_offset, _device, inode) = (fields.next()?, fields.next()?, fields.next()?);
    let path = fields.next();
    if perms != "rw-p" || inode != "0" || !matches!(path, None | Some("[heap]")) {
        return None;
    }
    let (start, end) = range.split_once('-')?;
    let start = usize::from_str_radix(start, 16).ok()?;
    let end = usize::from_str_radix(end, 16).ok()?;
    (end > start).then_some((start, end))
}

/// Every 4 KB page of the 2 MB at `at` is resident.
#[cfg(target_os = "linux")]
fn resident(at: usize) -> bool {
    let mut pages = [0u8; HUGE / BASE];
    // SAFETY: `at` is page-aligned and inside a mapping of this process; mincore only
    // writes one byte a page into `pages`, which has room for every page of the range.
    let rc = unsafe { libc::mincore(at as *mut libc::c_void, HUGE, pages.as_mut_ptr()) };
    rc == 0 && pages.iter().all(|p| p & 1 == 1)
}

#[cfg(not(target_os = "linux"))]
fn resident(_at: usize) -> bool {
    false
}

/// Asks the kernel to back `start..end` with huge pages; the bytes it did.
#[cfg(target_os = "linux")]
fn collapse(start: usize, end: usize) -> usize {
    // include/uapi/asm-generic/mman-common.h (Linux 6.1)
    const MADV_COLLAPSE: libc::c_int = 25;
    // SAFETY: the range is inside one private anonymous mapping of this process; collapsing
    // changes how its pages are backed, not what they hold.
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, end - start, MADV_COLLAPSE) };
    if rc == 0 {
        end - start
    } else {
        0
    }
}

#[cfg(not(target_os = "linux"))]
fn collapse(_start: usize, _end: usize) -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- only private anonymous memory is collapsed ----
    #[test]
    fn picks_the_heap_and_anonymous_mappings_only() {
        let line = |s: &str| private_anonymous(s);
        assert_eq!(
            line("55d0c0a00000-55d0c4a00000 rw-p 00000000 00:00 0                  [heap]"),
            Some((0x55d0c0a00000, 0x55d0c4a00000))
        );
        assert_eq!(
            line("7f1e2c000000-7f1e2e000000 rw-p 00000000 00:00 0 "),
            Some((0x7f1e2c000000, 0x7f1e2e000000))
        );
        for other in [
            "7ffd1c5e6000-7ffd1c607000 rw-p 00000000 00:00 0                  [stack]",
            "7f1e30000000-7f1e32000000 r--p 00000000 00:00 0 ",
            "7f1e34000000-7f1e36000000 rw-s 00000000 00:01 1234               /dev/zero",
            "55d0bf000000-55d0bf200000 rw-p 0002f000 08:01 5678               /usr/bin/run",
            "garbage",
        ] {
            assert_eq!(line(other), None, "{other}");
        }
    }

    // ---- collapsing changes no byte and adds nothing where pages are missing ----
    #[test]
    fn collapsing_keeps_every_byte() {
        let mut v: Vec<u64> = (0..(8 * HUGE / 8) as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        v[12345] = 7;
        let _ = collapse_resident();
        assert_eq!(v[12345], 7);
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| i == 12345 || x == (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)));
    }
}
