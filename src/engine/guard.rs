//! Guarded memory for the host engine: every buffer argument, every worker's
//! local memory and scratch lives in its own reservation of address space,
//! inaccessible except for the pages that hold the data, so a kernel that
//! reads or writes outside an argument faults instead of corrupting the
//! process (the technique of WebAssembly runtimes). A SIGSEGV/SIGBUS handler
//! turns a fault inside a registered reservation into the error the emulator
//! would give, naming the kernel, the work-group, the argument and its size,
//! and exits 1.
//!
//! ```text
//!  lo                                                              hi
//!  |<---- GUARD_BEFORE ---->|<- data pages ->|<---- GUARD_AFTER ---->|
//!  |   PROT_NONE, reserved  |  slack | data  |  PROT_NONE, reserved  |
//!                                    ^ptr    ^ptr + len (page boundary,
//!                                             when len is a multiple of
//!                                             the placement alignment)
//! ```
//!
//! What is caught:
//! - An access from `ptr + round_up(len, align)` up to `GUARD_AFTER` bytes
//!   past it: overruns, by one element when the size is a multiple of the
//!   alignment (16 bytes for buffers, see [`BUFFER_ALIGN`]).
//! - An access from `GUARD_BEFORE` bytes before the data pages up to their
//!   start: underruns, except the first `page - len % page` bytes before
//!   `ptr` (the slack of the first data page; up to 4095 bytes).
//!
//! What is not:
//! - The slack before `ptr` and, when `len` is not a multiple of the
//!   alignment, the few bytes after `ptr + len` (up to `align - 1`).
//! - Accesses further away than the guards, which may land in another
//!   reservation (then reported against that one) or in unrelated memory.
//! - One `__local` variable or argument overrunning into the next: a
//!   work-group's local memory is one block (the ABI places `__local`
//!   arguments at offsets in `ctx.local_mem`), guarded as a whole; nor
//!   private arrays, which live on the native stack or in scratch. The
//!   emulator checks each of these objects on its own (`engine::emu::objects`)
//!   and is the authority on them.
//!
//! Guard sizes: kernels index with 32-bit `int`s (sign-extended, times an
//! element of at most 8 bytes: ±16 GiB) or `uint`s (up to 32 GiB), so
//! [`GUARD_BEFORE`] = 16 GiB and [`GUARD_AFTER`] = 32 GiB catch any such
//! index. PROT_NONE, MAP_NORESERVE reservations cost no memory and no
//! commit charge, only address space (48 GiB of the 128 TiB user space on
//! x86-64: about 2700 of them fit). Where a reservation fails (a small
//! `ulimit -v`, address space exhausted) the guards are halved until it
//! succeeds, down to [`MIN_GUARD`].
//!
//! Data areas of 2 MiB or more end on a 2 MiB boundary and are advised to
//! use transparent huge pages (`MADV_HUGEPAGE`), as GPU runtimes back device
//! buffers with large pages: under the `madvise` setting they would get
//! 4 KiB pages, and a kernel striding across a big buffer misses the TLB on
//! nearly every access (transpose 1.2x faster with them, BENCHMARKS.md).
//!
//! The registry of reservations is a fixed static array of atomics, read by
//! the signal handler without locks or allocation. Faults outside every
//! registered reservation go to the handler that was installed before
//! (Rust's stack-overflow report), or to the default action, so real
//! crashes stay crashes.

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Once, OnceLock};

/// Address space kept inaccessible before the data.
pub const GUARD_BEFORE: usize = 16 << 30;
/// Address space kept inaccessible after the data.
pub const GUARD_AFTER: usize = 32 << 30;
/// The smallest guard tried when address space is short.
pub const MIN_GUARD: usize = 64 << 10;

/// Placement alignment of buffer arguments. The data's end touches the
/// trailing guard when the size is a multiple of it (every size of whole
/// 16-byte elements); other sizes leave `16 - len % 16` bytes unguarded.
/// 16, not the element size: the JIT'd code may use SSE/AVX aligned moves
/// where the IR says `align 16` (a `float4 *` argument, a vector load at
/// natural alignment), which fault on a misaligned address, and a
/// whole-element `float4` buffer is a multiple of 16 anyway. Larger vector
/// alignments (float8 and up) are met whenever the size is a whole number
/// of those vectors, since the end is page-aligned.
pub const BUFFER_ALIGN: usize = 16;

/// Registry capacity; reservations beyond it are still guarded, but a fault
/// in them is reported as a plain crash.
const SLOTS: usize = 1 << 14;

const FREE: usize = 0;
const BUSY: usize = 1;
const LIVE: usize = 2;

/// One registered reservation. `label` points at bytes owned by the
/// [`Guarded`] value: the kernel part, a NUL, then what the memory is.
struct Slot {
    state: AtomicUsize,
    lo: AtomicUsize,
    hi: AtomicUsize,
    data: AtomicUsize,
    len: AtomicUsize,
    label: AtomicPtr<u8>,
    label_len: AtomicUsize,
}

impl Slot {
    const fn new() -> Slot {
        Slot {
            state: AtomicUsize::new(FREE),
            lo: AtomicUsize::new(0),
            hi: AtomicUsize::new(0),
            data: AtomicUsize::new(0),
            len: AtomicUsize::new(0),
            label: AtomicPtr::new(std::ptr::null_mut()),
            label_len: AtomicUsize::new(0),
        }
    }
}

static REGISTRY: [Slot; SLOTS] = [const { Slot::new() }; SLOTS];
/// Slots below this index have been used.
static HIGH_WATER: AtomicUsize = AtomicUsize::new(0);
/// The tool named in fault messages (`simt-run: error: …`).
static TOOL: OnceLock<&'static str> = OnceLock::new();

/// Names the tool in fault messages; the first call wins.
pub fn set_tool_name(tool: &'static str) {
    let _ = TOOL.set(tool);
}

fn page_size() -> usize {
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    match PAGE.load(Ordering::Relaxed) {
        0 => {
            // SAFETY: `sysconf` has no preconditions; a failure (-1) is
            // handled below.
            let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let p = if p > 0 { p as usize } else { 4096 };
            PAGE.store(p, Ordering::Relaxed);
            p
        }
        p => p,
    }
}

/// `len` zeroed bytes at an `align`-aligned address whose end touches a
/// trailing guard, with a leading guard before the page that holds the
/// start. Unmapped on drop.
pub struct Guarded {
    /// The whole reservation.
    lo: *mut u8,
    reserved: usize,
    ptr: *mut u8,
    len: usize,
    /// The registry slot, `None` when the registry was full.
    slot: Option<usize>,
    /// Kernel part, NUL, what: see [`Guarded::set_label`].
    label: Box<[u8]>,
}

// SAFETY: the reservation and the label are owned by this value alone (no
// other value holds the mapping; it is unmapped only by `drop`), so moving
// it to another thread moves that ownership with it.
unsafe impl Send for Guarded {}
// SAFETY: `&Guarded` only reads the fields and hands out the data pointer as
// a raw pointer (dereferencing it is the caller's own unsafe act); every
// change (`set_label`, `drop`) takes `&mut self` or ownership, and the
// registry slot is updated through atomics.
unsafe impl Sync for Guarded {}

/// The size of an x86-64 transparent huge page; data areas at least this big
/// are advised to use them.
const HUGE_PAGE: usize = 2 << 20;

impl Guarded {
    /// Reserves and maps `len` zeroed bytes; `None` if no mapping of that
    /// size can be made. `align` is a power of two no larger than a page.
    pub fn new(len: usize, align: usize) -> Option<Guarded> {
        assert!(align.is_power_of_two() && align <= page_size(), "alignment {align}");
        install_handler();
        let page = page_size();
        let padded = len.checked_next_multiple_of(align)?;
        let data_pages = padded.checked_next_multiple_of(page)?;
        let (mut before, mut after) = (GUARD_BEFORE, GUARD_AFTER);
        loop {
            if let Some(g) = Guarded::map(len, padded, data_pages, before, after) {
                return Some(g);
            }
            if before <= MIN_GUARD {
                return None;
            }
            before = (before / 2).max(MIN_GUARD);
            after = (after / 2).max(MIN_GUARD);
        }
    }

    fn map(len: usize, padded: usize, data_pages: usize, before: usize, after: usize) -> Option<Guarded> {
        // Room to move a big data area so that it ends on a huge-page
        // boundary: transparent huge pages back only whole aligned 2 MiB
        // ranges, and the data ends where the trailing guard starts.
        let slide = if data_pages >= HUGE_PAGE { HUGE_PAGE } else { 0 };
        let reserved = before.checked_add(slide)?.checked_add(data_pages)?.checked_add(after)?;
        // SAFETY: the first `mmap` asks for fresh address space (no address
        // given, no fixed placement), so it replaces nothing. The second is
        // `MAP_FIXED` at `lo + before` (`before` grown by less than
        // `slide`), `data_pages` long: inside the `before + slide +
        // data_pages + after` bytes just reserved (the sum was checked), so
        // it replaces only our own PROT_NONE pages. On failure
        // the reservation is unmapped whole, once. `ptr = lo + before +
        // data_pages - padded` stays inside the reservation since `padded <=
        // data_pages`, and `len <= padded` bytes from it are the mapped,
        // zeroed data pages.
        unsafe {
            let lo = libc::mmap(
                std::ptr::null_mut(),
                reserved,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if lo == libc::MAP_FAILED {
                return None;
            }
            let lo = lo.cast::<u8>();
            let before = before + ((lo as usize + before + data_pages).wrapping_neg() & (slide.max(1) - 1));
            // The data pages: an ordinary (committed) private mapping over
            // the reservation, so an impossible size fails here as an
            // allocation would, not later at a page fault.
            if data_pages > 0 {
                let at = libc::mmap(
                    lo.add(before).cast(),
                    data_pages,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                );
                if at == libc::MAP_FAILED {
                    libc::munmap(lo.cast(), reserved);
                    return None;
                }
                // Big buffers get transparent huge pages where the system
                // hands them out only on request (THP `madvise`, Debian's
                // default): a kernel striding across a 64 MiB buffer
                // (transpose's writes, one row of 16 KiB apart per
                // work-item) otherwise misses the TLB on nearly every
                // access. Advice only: a refusal changes nothing.
                if data_pages >= HUGE_PAGE {
                    libc::madvise(at, data_pages, libc::MADV_HUGEPAGE);
                }
            }
            let ptr = lo.add(before + data_pages - padded);
            let mut g = Guarded { lo, reserved, ptr, len, slot: None, label: Box::new([]) };
            g.slot = register(&g);
            Some(g)
        }
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// What a fault message says about this memory: `kernel` (e.g.
    /// `kernel 'vecadd'`, may be empty) before the message, `what` (e.g.
    /// `argument 2 (4000 bytes, buf:f32:1000)`) after "at offset N of".
    pub fn set_label(&mut self, kernel: &str, what: &str) {
        let mut label = Vec::with_capacity(kernel.len() + 1 + what.len());
        label.extend_from_slice(kernel.as_bytes());
        label.push(0);
        label.extend_from_slice(what.as_bytes());
        let label = label.into_boxed_slice();
        if let Some(i) = self.slot {
            let s = &REGISTRY[i];
            s.state.store(BUSY, Ordering::SeqCst);
            s.label.store(label.as_ptr().cast_mut(), Ordering::SeqCst);
            s.label_len.store(label.len(), Ordering::SeqCst);
            s.state.store(LIVE, Ordering::SeqCst);
        }
        // The old label is freed only after the slot points at the new one.
        self.label = label;
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            REGISTRY[i].state.store(FREE, Ordering::SeqCst);
        }
        // SAFETY: `lo`/`reserved` is the reservation `map` made and only this
        // value owns; its slot was freed first, so the fault handler no
        // longer attributes addresses in it to this value.
        unsafe { libc::munmap(self.lo.cast(), self.reserved) };
    }
}

impl std::fmt::Debug for Guarded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Guarded({} bytes at {:p})", self.len, self.ptr)
    }
}

fn register(g: &Guarded) -> Option<usize> {
    for (i, s) in REGISTRY.iter().enumerate() {
        if s.state.compare_exchange(FREE, BUSY, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
            s.lo.store(g.lo as usize, Ordering::SeqCst);
            s.hi.store(g.lo as usize + g.reserved, Ordering::SeqCst);
            s.data.store(g.ptr as usize, Ordering::SeqCst);
            s.len.store(g.len, Ordering::SeqCst);
            s.label.store(g.label.as_ptr().cast_mut(), Ordering::SeqCst);
            s.label_len.store(g.label.len(), Ordering::SeqCst);
            HIGH_WATER.fetch_max(i + 1, Ordering::SeqCst);
            s.state.store(LIVE, Ordering::SeqCst);
            return Some(i);
        }
    }
    None
}

/// A registered reservation holding an address.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    /// Bytes from the data's start (negative: before it).
    pub offset: i64,
    pub len: usize,
    label: (*const u8, usize),
}

impl Hit {
    /// The kernel part and the what part of the label.
    ///
    /// # Safety
    /// The [`Guarded`] this hit was looked up in must still be alive, and its
    /// label not changed by [`Guarded::set_label`] since the lookup (the
    /// label's bytes are owned by that value and freed when it is dropped or
    /// relabelled), for as long as the returned slices are used.
    pub unsafe fn label(&self) -> (&[u8], &[u8]) {
        let bytes = if self.label.0.is_null() {
            &[][..]
        } else {
            // SAFETY: the pointer and length were stored together from one
            // boxed slice (`register`, `set_label`), which the caller
            // promises is still alive and unchanged.
            unsafe { std::slice::from_raw_parts(self.label.0, self.label.1) }
        };
        match bytes.iter().position(|&b| b == 0) {
            Some(i) => (&bytes[..i], &bytes[i + 1..]),
            None => (&[][..], bytes),
        }
    }
}

/// The registered reservation holding `addr`, if any: lock-free and
/// allocation-free, for the signal handler.
pub fn lookup(addr: usize) -> Option<Hit> {
    let n = HIGH_WATER.load(Ordering::SeqCst);
    for s in &REGISTRY[..n] {
        if s.state.load(Ordering::SeqCst) != LIVE {
            continue;
        }
        let (lo, hi) = (s.lo.load(Ordering::SeqCst), s.hi.load(Ordering::SeqCst));
        if addr < lo || addr >= hi {
            continue;
        }
        let data = s.data.load(Ordering::SeqCst);
        let hit = Hit {
            offset: (addr as i64).wrapping_sub(data as i64),
            len: s.len.load(Ordering::SeqCst),
            label: (s.label.load(Ordering::SeqCst), s.label_len.load(Ordering::SeqCst)),
        };
        if s.state.load(Ordering::SeqCst) == LIVE {
            return Some(hit);
        }
    }
    None
}

// ---------------------------------------------------------------------------
// The fault handler

thread_local! {
    /// The work-groups this thread is running: the first one's id and how
    /// many follow it in linear order (more than one for the interleaved
    /// form), for fault messages. Const-initialised and without a
    /// destructor, so the handler can read it.
    static RUNNING: Cell<Option<([u64; 3], u64)>> = const { Cell::new(None) };
}

/// Records that this thread runs work-group `first` and the `count - 1`
/// after it (`None`: none), until the next call.
#[inline]
pub fn set_running(groups: Option<([u64; 3], u64)>) {
    RUNNING.with(|r| r.set(groups));
}

/// The handlers replaced, SIGSEGV then SIGBUS.
static PREVIOUS: [OnceLock<libc::sigaction>; 2] = [OnceLock::new(), OnceLock::new()];
/// Set by the first thread that reports; the others wait for its `_exit`.
static REPORTING: AtomicBool = AtomicBool::new(false);

/// Installs the SIGSEGV/SIGBUS handler, once per process.
pub fn install_handler() {
    static ONCE: Once = Once::new();
    // SAFETY: `sigaction` structs are plain C data, valid zeroed; the
    // handler installed has the `SA_SIGINFO` signature it is cast from; the
    // old handler is read (and kept for chaining) before ours is installed.
    ONCE.call_once(|| unsafe {
        for (i, sig) in [libc::SIGSEGV, libc::SIGBUS].into_iter().enumerate() {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_fault as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            // Record the old handler before ours can run.
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0 {
                let _ = PREVIOUS[i].set(old);
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    });
    ensure_altstack();
}

/// Gives this thread an alternate signal stack if it has none, so the
/// handler (and the chained stack-overflow report) can run when the fault
/// is on the thread's own stack. Rust's std gives its threads one already;
/// this covers threads made otherwise. Cheap after the first call.
pub fn ensure_altstack() {
    thread_local! { static DONE: Cell<bool> = const { Cell::new(false) }; }
    if DONE.with(|d| d.replace(true)) {
        return;
    }
    // SAFETY: `stack_t` is plain C data, valid zeroed; the new alternate
    // stack is a fresh read-write mapping of `size` bytes (at least
    // `SIGSTKSZ`) that is never unmapped, so it outlives the thread's use of
    // it; an existing alternate stack is left alone.
    unsafe {
        let mut old: libc::stack_t = std::mem::zeroed();
        if libc::sigaltstack(std::ptr::null(), &mut old) != 0 || old.ss_flags & libc::SS_DISABLE == 0 {
            return;
        }
        let size = (64 << 10).max(libc::SIGSTKSZ);
        let p = libc::mmap(std::ptr::null_mut(), size, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
        if p == libc::MAP_FAILED {
            return;
        }
        // Kept for the thread's life (and the process's: threads that exit
        // leave 64 KiB behind, pool threads do not exit).
        let st = libc::stack_t { ss_sp: p, ss_flags: 0, ss_size: size };
        libc::sigaltstack(&st, std::ptr::null_mut());
    }
}

/// A fixed buffer the handler formats into: no allocation.
struct Msg {
    buf: [u8; 1024],
    len: usize,
}

impl Msg {
    fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }

    fn push_int(&mut self, v: i64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut u = v.unsigned_abs();
        loop {
            i -= 1;
            digits[i] = b'0' + (u % 10) as u8;
            u /= 10;
            if u == 0 {
                break;
            }
        }
        if v < 0 {
            self.push(b"-");
        }
        self.push(&digits[i..]);
    }
}

/// The fault message for `hit` (without the trailing newline): `kernel 'k':
/// work-group (9,0,0): store at offset 4000 of argument 1 (4000 bytes,
/// buf:f32:1000) is out of bounds (…)`, the emulator's wording less the
/// work-item, access size and instruction, which a guard page cannot tell.
///
/// # Safety
/// As for [`Hit::label`]: the `Guarded` that `hit` was found in is alive
/// and not relabelled.
unsafe fn format_fault(msg: &mut Msg, tool: &str, hit: &Hit, access: &str, running: Option<([u64; 3], u64)>) {
    // SAFETY: the caller's promise.
    let (kernel, what) = unsafe { hit.label() };
    msg.push(tool.as_bytes());
    msg.push(b": error: ");
    if !kernel.is_empty() {
        msg.push(kernel);
        msg.push(b": ");
    }
    let group = |msg: &mut Msg, [x, y, z]: [u64; 3]| {
        msg.push(b"(");
        for (i, v) in [x, y, z].into_iter().enumerate() {
            if i > 0 {
                msg.push(b",");
            }
            msg.push_int(v as i64);
        }
        msg.push(b")");
    };
    match running {
        Some((first, 1)) => {
            msg.push(b"work-group ");
            group(msg, first);
            msg.push(b": ");
        }
        Some((first, n)) => {
            msg.push(b"one of the ");
            msg.push_int(n as i64);
            msg.push(b" work-groups from ");
            group(msg, first);
            msg.push(b" (interleaved): ");
        }
        None => {}
    }
    msg.push(access.as_bytes());
    msg.push(b" at offset ");
    msg.push_int(hit.offset);
    msg.push(b" of ");
    msg.push(what);
    msg.push(b" is out of bounds (the host engine caught it with a guard page; --engine emu names the work-item and the array)");
}

/// Whether the faulting access was a write: the page-fault error code's
/// W bit, on x86-64.
///
/// # Safety
/// `uctx` is null or the `ucontext_t` the kernel passed to an
/// `SA_SIGINFO` handler that is still running.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
unsafe fn access_kind(uctx: *mut c_void) -> &'static str {
    if uctx.is_null() {
        return "access";
    }
    // SAFETY: non-null (checked), so by the caller's promise a live
    // `ucontext_t`, only read here.
    let uc = unsafe { &*(uctx as *const libc::ucontext_t) };
    if uc.uc_mcontext.gregs[libc::REG_ERR as usize] & 2 != 0 {
        "store"
    } else {
        "load"
    }
}

/// # Safety
/// None needed; `unsafe` to match the x86-64 Linux version.
#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
unsafe fn access_kind(_uctx: *mut c_void) -> &'static str {
    "access"
}

extern "C" fn on_fault(sig: libc::c_int, info: *mut libc::siginfo_t, uctx: *mut c_void) {
    // SAFETY: this runs only as the SA_SIGINFO handler `install_handler`
    // set, so `info` (null-checked) and `uctx` are what the kernel passed.
    // A hit's `Guarded` is alive: the access that faulted was into its
    // reservation, made by a kernel running while its buffers are held, and
    // labels are set before launch; only one thread formats (`REPORTING`),
    // with no allocation, and `write`/`_exit`/`pause` are async-signal-safe.
    // A previous handler is called with the signature its `SA_SIGINFO` flag
    // says it has (SIG_DFL/SIG_IGN excluded). Resetting to SIG_DFL and
    // returning re-runs the access under the default action.
    unsafe {
        let addr = if info.is_null() { 0 } else { (*info).si_addr() as usize };
        if let Some(hit) = lookup(addr) {
            if REPORTING.swap(true, Ordering::SeqCst) {
                // Another thread is reporting and about to exit.
                loop {
                    libc::pause();
                }
            }
            let mut msg = Msg { buf: [0; 1024], len: 0 };
            let running = RUNNING.try_with(|r| r.get()).ok().flatten();
            format_fault(&mut msg, TOOL.get().copied().unwrap_or("simt"), &hit, access_kind(uctx), running);
            msg.len = msg.len.min(msg.buf.len() - 1);
            msg.buf[msg.len] = b'\n';
            libc::write(2, msg.buf.as_ptr().cast(), msg.len + 1);
            libc::_exit(1);
        }
        // Not ours: the handler that was there before, else the default.
        let i = if sig == libc::SIGBUS { 1 } else { 0 };
        if let Some(prev) = PREVIOUS[i].get() {
            let h = prev.sa_sigaction;
            if h != libc::SIG_DFL && h != libc::SIG_IGN {
                if prev.sa_flags & libc::SA_SIGINFO != 0 {
                    let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut c_void) = std::mem::transmute(h);
                    f(sig, info, uctx);
                } else {
                    let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                    f(sig);
                }
                return;
            }
        }
        // Returning re-runs the access, which now takes the default action.
        let mut dfl: libc::sigaction = std::mem::zeroed();
        dfl.sa_sigaction = libc::SIG_DFL;
        libc::sigaction(sig, &dfl, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_zeroing_and_lookup() {
        let page = page_size();
        for (len, align) in [(0usize, 16usize), (1, 16), (4000, 16), (4001, 16), (4096, 64), (100_000, 64), (40, 64)] {
            let mut g = Guarded::new(len, align).unwrap();
            let p = g.as_ptr() as usize;
            assert_eq!(p % align, 0, "{len}/{align}");
            assert_eq!(g.len(), len);
            // The end (rounded up to the alignment) is a page boundary.
            assert_eq!((p + len.next_multiple_of(align)) % page, 0, "{len}/{align}");
            // SAFETY: `g` owns `len` mapped, zeroed bytes at `as_ptr()`, and
            // nothing else refers to them while `bytes` is used.
            let bytes = unsafe { std::slice::from_raw_parts_mut(g.as_ptr(), len) };
            assert!(bytes.iter().all(|&b| b == 0));
            bytes.fill(0xA5);
            assert!(bytes.iter().all(|&b| b == 0xA5));
            g.set_label("kernel 'k'", "argument 3 (x)");
            // Inside the data: not a guard hit of interest, but the lookup
            // finds the reservation; past the end and far before: hits.
            let end = p + len.next_multiple_of(align);
            let hit = lookup(end).unwrap();
            assert_eq!(hit.offset, len.next_multiple_of(align) as i64);
            assert_eq!(hit.len, len);
            // SAFETY: `g` is alive and was labelled before the lookup.
            assert_eq!(unsafe { hit.label() }, (&b"kernel 'k'"[..], &b"argument 3 (x)"[..]));
            assert_eq!(lookup(end + GUARD_AFTER / 2).unwrap().offset, (len.next_multiple_of(align) + GUARD_AFTER / 2) as i64);
            assert_eq!(lookup(p - (1 << 20)).unwrap().offset, -(1 << 20));
            drop(g);
            assert!(lookup(end).is_none_or(|h| h.len != len || h.offset != len.next_multiple_of(align) as i64));
        }
        assert!(Guarded::new(usize::MAX - 10, 16).is_none());
    }

    /// A big data area ends on a huge-page boundary and carries the advice
    /// (`hg` among its VmFlags in /proc/self/smaps, where the kernel has
    /// transparent huge pages); a small one neither moves nor is advised.
    #[test]
    fn big_areas_ask_for_huge_pages() {
        let thp = std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists();
        for (len, huge) in [(3 * HUGE_PAGE + 4000, true), (HUGE_PAGE, true), (HUGE_PAGE - 4096, false)] {
            let g = Guarded::new(len, 64).unwrap();
            let end = g.as_ptr() as usize + len.next_multiple_of(64);
            if huge {
                assert_eq!(end % HUGE_PAGE, 0, "{len}");
            }
            let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
            // The mapping holding the data: its header line, then its fields.
            let data = g.as_ptr() as usize;
            let mut flags = None;
            let mut inside = false;
            for line in smaps.lines() {
                if let Some((range, _)) = line.split_once(' ').filter(|(r, _)| r.contains('-') && !r.contains(':')) {
                    let (lo, hi) = range.split_once('-').unwrap();
                    let (lo, hi) = (usize::from_str_radix(lo, 16).unwrap(), usize::from_str_radix(hi, 16).unwrap());
                    inside = lo <= data && data < hi;
                } else if inside && line.starts_with("VmFlags:") {
                    flags = Some(line.split_whitespace().any(|f| f == "hg"));
                }
            }
            if thp {
                assert_eq!(flags, Some(huge), "{len}");
            }
        }
    }

    #[test]
    fn message_wording() {
        let mut g = Guarded::new(4000, 16).unwrap();
        g.set_label("kernel 'vecadd'", "argument 2 (4000 bytes, buf:f32:1000)");
        let hit = lookup(g.as_ptr() as usize + 4000).unwrap();
        let mut m = Msg { buf: [0; 1024], len: 0 };
        // SAFETY: `g` is alive and not relabelled after the lookup.
        unsafe { format_fault(&mut m, "simt-run", &hit, "store", Some(([9, 0, 0], 1))) };
        assert_eq!(
            std::str::from_utf8(&m.buf[..m.len]).unwrap(),
            "simt-run: error: kernel 'vecadd': work-group (9,0,0): store at offset 4000 of argument 2 (4000 bytes, buf:f32:1000) is out of bounds (the host engine caught it with a guard page; --engine emu names the work-item and the array)"
        );
        let hit = lookup(g.as_ptr() as usize - 1_048_576).unwrap();
        let mut m = Msg { buf: [0; 1024], len: 0 };
        // SAFETY: as above.
        unsafe { format_fault(&mut m, "t", &hit, "load", None) };
        assert!(std::str::from_utf8(&m.buf[..m.len])
            .unwrap()
            .starts_with("t: error: kernel 'vecadd': load at offset -1048576 of argument 2"));
        let mut m = Msg { buf: [0; 1024], len: 0 };
        // SAFETY: as above.
        unsafe { format_fault(&mut m, "t", &hit, "load", Some(([4, 1, 2], 3))) };
        assert!(
            std::str::from_utf8(&m.buf[..m.len])
                .unwrap()
                .starts_with("t: error: kernel 'vecadd': one of the 3 work-groups from (4,1,2) (interleaved): load at offset"),
            "{}",
            std::str::from_utf8(&m.buf[..m.len]).unwrap()
        );
        let mut m = Msg { buf: [0; 1024], len: 0 };
        m.push_int(i64::MIN);
        m.push_int(0);
        assert_eq!(&m.buf[..m.len], b"-92233720368547758080");
    }

    /// Runs `f` in a forked child with stderr captured; returns its wait
    /// status and what it wrote.
    fn in_child(f: impl FnOnce()) -> (libc::c_int, String) {
        // SAFETY: plain libc calls on descriptors made here; `read` writes
        // at most `buf.len()` bytes into `buf`. The child, a copy of a
        // multi-threaded process, only runs `f` (in these tests: a volatile
        // access, a thread-local store, then the fault handler, which is
        // async-signal-safe) and `_exit`s, without unwinding or allocating
        // in anything it shares with the parent's other threads.
        unsafe {
            let mut fds = [0; 2];
            assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                libc::dup2(fds[1], 2);
                libc::close(fds[0]);
                f();
                libc::_exit(0);
            }
            libc::close(fds[1]);
            let mut out = Vec::new();
            let mut buf = [0u8; 4096];
            loop {
                let n = libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len());
                if n <= 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n as usize]);
            }
            libc::close(fds[0]);
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            (status, String::from_utf8_lossy(&out).into_owned())
        }
    }

    #[test]
    fn the_first_byte_past_the_end_faults_and_exits_1() {
        set_tool_name("simt-test");
        let mut g = Guarded::new(4000, 16).unwrap();
        g.set_label("kernel 'k'", "argument 1 (4000 bytes, buf:f32:1000)");
        let p = g.as_ptr();
        // The last byte is writable.
        // SAFETY: byte 3999 of the 4000 that `g` owns.
        unsafe { std::ptr::write_volatile(p.add(3999), 7) };
        // SAFETY: deliberately out of bounds, in a forked child: the first
        // byte past the data is a PROT_NONE guard page of `g`'s reservation,
        // so the store faults before any memory changes and the handler
        // `_exit`s the child. `wrapping_add` keeps the address computation
        // itself defined.
        let (status, err) = in_child(|| unsafe {
            set_running(Some(([2, 3, 0], 1)));
            std::ptr::write_volatile(p.wrapping_add(4000), 1)
        });
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1, "status {status:#x}: {err}");
        assert_eq!(
            err,
            "simt-test: error: kernel 'k': work-group (2,3,0): store at offset 4000 of argument 1 (4000 bytes, buf:f32:1000) is out of bounds (the host engine caught it with a guard page; --engine emu names the work-item and the array)\n"
        );
        // SAFETY: as above: 1 MiB before the data is inside the leading
        // guard, so the load faults and the child exits.
        let (status, err) = in_child(|| unsafe {
            std::ptr::read_volatile(p.wrapping_sub(1 << 20));
        });
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1, "status {status:#x}: {err}");
        assert!(err.contains("load at offset -1048576 of argument 1"), "{err}");
        // A fault outside every reservation still kills with SIGSEGV.
        // SAFETY: deliberately a wild store in a forked child: address 16
        // is never mapped, so it faults and the child dies of SIGSEGV.
        let (status, err) = in_child(|| unsafe {
            std::ptr::write_volatile(16usize as *mut u8, 1);
        });
        assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGSEGV, "status {status:#x}: {err}");
        assert!(err.is_empty(), "{err}");
    }
}
