//! The wasm modules' allocator: one free list per power-of-two size class, over memory taken
//! from `memory.grow` and never given back (wasm memory cannot shrink). A block freed is
//! reused by the next request of its class; blocks are not split or merged, so a class holds
//! at most as many blocks as were ever live in it at once. The rules allocate little and free
//! all of it before returning, which is the case this serves: a few hundred bytes of code
//! where talc, a general allocator, took 2 KiB (BENCHMARKS.md).
//!
//! `Heap` is plain code over addresses, so the tests below run it natively over an array.

use core::alloc::{GlobalAlloc, Layout};
use core::cell::Cell;

/// Blocks are at least 16 bytes (room for the free list's link) and aligned to 16: the
/// largest alignment a type of the crate or its dependencies asks for (`u128`).
const MIN_CLASS: u32 = 4;
const ALIGN: usize = 1 << MIN_CLASS;
const CLASSES: usize = usize::BITS as usize;

/// Where more memory comes from: at least `bytes` more, as the range `(start, end)`, or None.
pub type Grow = fn(bytes: usize) -> Option<(usize, usize)>;

pub struct Heap {
    /// The first free block of each class (0: none); each free block's first word links the next.
    free: [Cell<usize>; CLASSES],
    /// The unused memory the last growth left: `next..end`.
    next: Cell<usize>,
    end: Cell<usize>,
    grow: Grow,
}

// Safety: the modules are single-threaded (the global allocator is only installed without the
// `atomics` target feature), so no two calls ever run at once.
unsafe impl Sync for Heap {}

/// The class of a request: log2 of the block that holds it, or None if no block can.
fn class_of(layout: Layout) -> Option<usize> {
    if layout.align() > ALIGN {
        return None;
    }
    let size = layout.size().max(ALIGN).checked_next_power_of_two()?;
    Some(size.trailing_zeros() as usize)
}

impl Heap {
    pub const fn new(grow: Grow) -> Heap {
        Heap { free: [const { Cell::new(0) }; CLASSES], next: Cell::new(0), end: Cell::new(0), grow }
    }

    /// The first 16-aligned address of the unused memory, if `size` bytes fit there.
    fn fitting(&self, size: usize) -> Option<usize> {
        let start = self.next.get().checked_add(ALIGN - 1)? & !(ALIGN - 1);
        (self.end.get().checked_sub(start)? >= size).then_some(start)
    }

    /// A fresh block of `size` bytes from the unused memory, growing it if it is too short.
    fn carve(&self, size: usize) -> Option<usize> {
        let start = match self.fitting(size) {
            Some(start) => start,
            None => {
                let (from, to) = (self.grow)(size.checked_add(ALIGN)?)?;
                // The new memory follows the old unless something else grew it meanwhile.
                if from != self.end.get() {
                    self.next.set(from);
                }
                self.end.set(to);
                self.fitting(size)?
            }
        };
        self.next.set(start + size);
        Some(start)
    }

    /// # Safety
    /// As `GlobalAlloc::alloc`.
    // Not inlined: one copy, not one in each of the module's exports.
    #[inline(never)]
    pub unsafe fn allocate(&self, layout: Layout) -> *mut u8 {
        let Some(class) = class_of(layout) else { return core::ptr::null_mut() };
        let head = &self.free[class];
        let block = head.get();
        if block != 0 {
            head.set(unsafe { *(block as *const usize) });
            return block as *mut u8;
        }
        self.carve(1 << class).map_or(core::ptr::null_mut(), |block| block as *mut u8)
    }

    /// # Safety
    /// As `GlobalAlloc::dealloc`.
    // Not inlined: one copy, not one in each of the module's exports.
    #[inline(never)]
    pub unsafe fn release(&self, ptr: *mut u8, layout: Layout) {
        // A block that was handed out has a class.
        let Some(class) = class_of(layout) else { return };
        let head = &self.free[class];
        unsafe { *(ptr as *mut usize) = head.get() };
        head.set(ptr as usize);
    }

    /// # Safety
    /// As `GlobalAlloc::realloc`.
    // Not inlined: one copy, not one in each of the module's exports.
    #[inline(never)]
    pub unsafe fn resize(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return core::ptr::null_mut();
        };
        if class_of(new_layout) == class_of(layout) {
            return ptr;
        }
        let new = unsafe { self.allocate(new_layout) };
        if !new.is_null() {
            unsafe {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.release(ptr, layout);
            }
        }
        new
    }
}

unsafe impl GlobalAlloc for Heap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { self.allocate(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { self.release(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { self.resize(ptr, layout, new_size) }
    }
}

/// Wasm memory, grown by whole 64 KiB pages.
#[cfg(target_family = "wasm")]
pub fn grow_memory(bytes: usize) -> Option<(usize, usize)> {
    const PAGE: usize = 1 << 16;
    let pages = bytes.div_ceil(PAGE);
    let old = core::arch::wasm32::memory_grow(0, pages);
    (old != usize::MAX).then(|| (old * PAGE, (old + pages) * PAGE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;
    use std::vec::Vec;

    /// The memory the test heaps grow into: 4 MiB, handed out 64 KiB at a time like wasm pages.
    static ARENA: Mutex<Vec<u128>> = Mutex::new(Vec::new());
    static ARENA_USED: Mutex<usize> = Mutex::new(0);
    const ARENA_BYTES: usize = 4 << 20;

    fn grow(bytes: usize) -> Option<(usize, usize)> {
        let mut arena = ARENA.lock().unwrap();
        if arena.is_empty() {
            *arena = vec![0u128; ARENA_BYTES / 16];
        }
        let base = arena.as_ptr() as usize;
        let mut used = ARENA_USED.lock().unwrap();
        let bytes = bytes.div_ceil(1 << 16) << 16;
        if *used + bytes > ARENA_BYTES {
            return None;
        }
        let start = base + *used;
        *used += bytes;
        Some((start, start + bytes))
    }

    // One test owns the arena (the heaps it makes share it), so the checks run in order.
    #[test]
    fn blocks_are_aligned_disjoint_kept_and_reused() {
        let heap = Heap::new(grow);
        let layout = |size: usize, align: usize| Layout::from_size_align(size, align).unwrap();
        unsafe {
            // Every block is aligned, holds what is written to it, and overlaps no other.
            let sizes = [1, 7, 16, 17, 100, 4096, 70_000, 3, 33];
            let blocks: Vec<(*mut u8, usize)> = sizes
                .iter()
                .enumerate()
                .map(|(i, &size)| {
                    let p = heap.allocate(layout(size, 1 << (i % 5)));
                    assert!(!p.is_null());
                    assert_eq!(p as usize % (1 << (i % 5)), 0, "alignment of block {i}");
                    p.write_bytes(i as u8, size);
                    (p, size)
                })
                .collect();
            for (i, &(p, size)) in blocks.iter().enumerate() {
                assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == i as u8), "block {i} was overwritten");
            }

            // Resizing keeps the contents, in place within a class and copied across classes.
            let (p, _) = blocks[4];
            assert_eq!(heap.resize(p, layout(100, 1), 120), p, "100 and 120 bytes share a class");
            let moved = heap.resize(p, layout(120, 1), 5000);
            assert!(std::slice::from_raw_parts(moved, 100).iter().all(|&b| b == 4));
            heap.release(moved, layout(5000, 1));

            // Freed blocks are reused: a thousand rounds of the same work take no new memory.
            let round = || {
                let held: Vec<*mut u8> = [24, 200, 3000, 24, 9].iter().map(|&s| heap.allocate(layout(s, 8))).collect();
                for (p, s) in held.into_iter().zip([24, 200, 3000, 24, 9]) {
                    heap.release(p, layout(s, 8));
                }
            };
            round();
            let end = heap.end.get();
            let next = heap.next.get();
            for _ in 0..1000 {
                round();
            }
            assert_eq!((heap.next.get(), heap.end.get()), (next, end), "the rounds carved new memory");

            // What cannot be had is a null pointer, not a panic.
            assert!(heap.allocate(layout(8 << 20, 1)).is_null(), "more than the arena");
            assert!(heap.allocate(layout(64, 32)).is_null(), "an alignment past 16");
            assert!(heap.allocate(layout(usize::MAX / 2, 1)).is_null(), "no class holds it");
        }
    }
}
