//! Runs every work-group of a launch through a work-group function (the C
//! ABI of `simt_passes::wg_abi`) on all cores, with rayon.
//!
//! Each rayon worker owns, allocated once when the [`Runner`] is built: a
//! `WgContext`, its local memory (the kernel's static bytes, then the
//! `__local` pointer arguments; zeroed once, not per work-group: OpenCL and
//! CUDA leave local memory undefined when a work-group starts, and clearing
//! it cost as much as some kernels' work), its scratch
//! (`scratch_per_item` bytes per work-item, 64-byte aligned) and the `args`
//! array with the value slots it points at. Calling a work-group therefore
//! allocates nothing. Work-groups are handed out in chunks of consecutive
//! linear ids (x fastest), at most 64 chunks per worker, each its own rayon
//! task, so that an idle worker takes over the chunks of one whose core is
//! busy with another process. If work-groups fail,
//! the one with the lowest linear id is reported, whatever the scheduling.

use crate::diag::ToolError;
use crate::engine::buffers::{AlignedBytes, ArgValue, BufferSnapshot, KernelArgs, LocalLayout, ALIGN};
use crate::launch::Grid;
use indicatif::ProgressBar;
use rayon::prelude::*;
use simt_passes::wg_abi::{WgContext, WgFn, WgiFn, STATUS_BARRIER_DIVERGENCE, STATUS_OK};
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// A kernel compiled to a work-group function, as any engine that produces
/// `wg_abi` functions (the host JIT, a linked object) hands it to the runner.
/// Only [`WgKernel::new`], which is `unsafe`, makes one: the runner calls
/// its functions trusting what that constructor's caller promised.
#[derive(Clone, Copy)]
pub struct WgKernel<'a> {
    /// For messages.
    name: &'a str,
    wg_fn: WgFn,
    scratch_per_item: u64,
    /// Static `__local`/`__shared__` bytes.
    local_bytes: u64,
    /// Barrier id -> source description.
    barrier_names: &'a [String],
    /// Seed 001's interleaved form `simt_wgi_K` and its ring size, if any.
    interleaved: Option<(WgiFn, u64)>,
    /// For a non-uniform launch's smaller work-groups: a work-group
    /// function of the same kernel not specialised for the local size, its
    /// scratch per work-item and barrier names.
    remainder: Option<(WgFn, u64, &'a [String])>,
    /// The code assumes [`Grid::ids_fit_i32`] (either function's).
    ids_fit_i32: bool,
}

impl<'a> WgKernel<'a> {
    /// A kernel named `name` (for messages): its work-group function
    /// `wg_fn`, the scratch bytes it needs per work-item and its static local
    /// bytes, the names of its barriers by id (entry, one per barrier, exit),
    /// and its interleaved form with its ring size, if any.
    ///
    /// # Safety
    ///
    /// `wg_fn` (and the interleaved function) must keep the `wg_abi`
    /// contract for as long as the `WgKernel` is used: called with an `args`
    /// array laid out for the kernel's signature (one pointer per parameter
    /// to its value: a buffer's address, a `__local` argument's address in
    /// local memory, a scalar's bytes) and a context (or `count` contexts)
    /// with `local_bytes` of static local memory before the `__local`
    /// arguments and `scratch_per_item` bytes of scratch per work-item, it
    /// reads and writes only those, uses the contexts only during the call,
    /// and returns a `wg_abi` status. The code must stay loaded while the
    /// `WgKernel` lives. An overrun of the buffers, local memory or scratch
    /// hits a guard page and ends the process with an error; nothing else
    /// here can check the contract.
    pub unsafe fn new(
        name: &'a str,
        wg_fn: WgFn,
        scratch_per_item: u64,
        local_bytes: u64,
        barrier_names: &'a [String],
        interleaved: Option<(WgiFn, u64)>,
    ) -> WgKernel<'a> {
        WgKernel { name, wg_fn, scratch_per_item, local_bytes, barrier_names, interleaved, remainder: None, ids_fit_i32: false }
    }

    /// This kernel, compiled (`fits`) for grids whose ids and sizes are all
    /// below 2^31 ([`Grid::ids_fit_i32`]): [`Runner::new`] refuses another
    /// grid, on which its `int` truncations of ids would be wrongly exact.
    pub fn for_ids_fit_i32(self, fits: bool) -> WgKernel<'a> {
        WgKernel { ids_fit_i32: fits, ..self }
    }

    /// This kernel, with `other` (the same kernel compiled for any local
    /// size) running the work-groups smaller than the launch's local size.
    /// An error if the two disagree on static local memory, which places
    /// the `__local` arguments.
    pub fn with_remainder(self, other: WgKernel<'a>) -> Result<WgKernel<'a>, ToolError> {
        if other.local_bytes != self.local_bytes {
            return Err(ToolError::Run(format!(
                "kernel '{}': its two work-group functions lay out {} and {} bytes of __local variables",
                self.name, self.local_bytes, other.local_bytes
            )));
        }
        Ok(WgKernel {
            remainder: Some((other.wg_fn, other.scratch_per_item, other.barrier_names)),
            ids_fit_i32: self.ids_fit_i32 || other.ids_fit_i32,
            ..self
        })
    }
}

/// One rayon worker's state. The raw pointers point into its own blocks and
/// into the launch's buffers, which outlive the runner.
struct Worker {
    ctx: WgContext,
    /// Parameter i's value: a buffer's or local argument's address, or a
    /// scalar's little-endian bytes.
    _slots: Box<[u64]>,
    /// `args[i]` = `&slots[i]`.
    arg_ptrs: Box<[*mut c_void]>,
    local: AlignedBytes,
    scratch: AlignedBytes,
    /// Interleaved runs: memory sets 1.. of the ring (set 0 is `local` and
    /// `scratch`, which the `__local` argument slots point into), and the
    /// contexts of one chunk of work-groups.
    ring: Vec<(AlignedBytes, AlignedBytes)>,
    ctxs: Vec<WgContext>,
    /// Work-groups finished but not yet added to the progress bar.
    pending_progress: u64,
}

// SAFETY: the raw pointers are addresses, not borrows of anything
// thread-bound: `arg_ptrs` and the contexts point into this worker's own
// boxed slots and guarded blocks (heap and mmap memory whose addresses do
// not move with the struct), and the slots hold addresses of the launch's
// buffers, which the runner's `&'a mut KernelArgs` keeps alive and
// unaliased by safe code. Each worker sits behind its own `Mutex`, so only
// one thread uses a worker's memory at a time.
unsafe impl Send for Worker {}

/// Keeps workers on separate cache lines.
#[repr(align(128))]
struct Padded<T>(T);

/// Progress is added to the bar in steps of this many work-groups.
const PROGRESS_STEP: u64 = 256;

/// A run is split into at most this many chunks of work-groups per worker.
const CHUNKS_PER_WORKER: u64 = 64;

/// Seed 001 bounds the work-groups in flight by the memory they need: the
/// ring's memory sets must fit in this many bytes per worker, else the
/// plain work-group function runs.
pub const INTERLEAVE_MEMORY_BUDGET: u64 = 16 << 20;

/// Runs a launch's work-groups, as many times as asked.
pub struct Runner<'a> {
    kernel: WgKernel<'a>,
    grid: Grid,
    layout: LocalLayout,
    scratch_bytes: u64,
    workers: Vec<Padded<Mutex<Worker>>>,
    /// Ring size when the interleaved form runs.
    ring: Option<u64>,
    /// The buffer arguments (parameter index, address, bytes), for
    /// [`Runner::refill`]: the same addresses the workers' slots hold.
    buffers: Vec<(usize, u64, usize)>,
    /// The buffers' addresses are in the workers' slots.
    _args: PhantomData<&'a mut KernelArgs>,
}

/// How a run failed: the work-group (lowest linear id) and what it returned.
#[derive(Clone, Copy, Debug)]
struct Failure {
    group: u64,
    status: u32,
    error: [u32; 3],
    /// Returned by the remainder function (its own barrier names).
    remainder: bool,
}

impl<'a> Runner<'a> {
    /// Lays out local memory (an error over `local_mem_limit` bytes) and
    /// allocates every worker's state, for the current rayon pool.
    pub fn new(kernel: WgKernel<'a>, grid: Grid, args: &'a mut KernelArgs, local_mem_limit: u64) -> Result<Runner<'a>, ToolError> {
        if kernel.ids_fit_i32 && !grid.ids_fit_i32() {
            return Err(ToolError::Run(format!(
                "kernel '{}' was compiled for grids whose ids and sizes are below 2^31; this grid (global {:?}, offset {:?}, local {:?}) is larger",
                kernel.name, grid.global, grid.global_offset, grid.local
            )));
        }
        let layout = LocalLayout::for_args(kernel.local_bytes, args);
        layout.check_limit(kernel.name, local_mem_limit)?;
        let scratch_per_item = kernel.scratch_per_item.max(kernel.remainder.map_or(0, |r| r.1));
        let scratch_bytes = scratch_per_item
            .checked_mul(grid.items_per_group())
            .ok_or_else(|| ToolError::Run(format!("kernel '{}': scratch per work-group overflows 64 bits", kernel.name)))?;
        let alloc_err = |what: &str, bytes: u64| {
            ToolError::Run(format!("kernel '{}': cannot allocate {bytes} bytes of {what} per worker", kernel.name))
        };
        let local_len = usize::try_from(layout.total).map_err(|_| alloc_err("local memory", layout.total))?;
        let scratch_len = usize::try_from(scratch_bytes).map_err(|_| alloc_err("scratch", scratch_bytes))?;
        // Fault messages name the kernel, the argument and its size.
        let kernel_label = format!("kernel '{}'", kernel.name);
        let local_label = local_label(&layout, args);
        let scratch_label = format!("scratch ({scratch_bytes} bytes per work-group: the work-items' private memory)");
        for (i, v) in args.values.iter_mut().enumerate() {
            if let ArgValue::Buffer(b) | ArgValue::Struct(b) = v {
                b.set_label(kernel.name, i);
            }
        }
        // The pass places static `__local` variables at offsets aligned to
        // up to 64 bytes from `local_mem`; with none, the `__local`
        // arguments need their element alignment, which 16 covers, and the
        // block's end touches the guard for more sizes.
        let local_align = if layout.static_bytes > 0 { ALIGN } else { crate::engine::guard::BUFFER_ALIGN };
        let new_local = || -> Result<AlignedBytes, ToolError> {
            let mut l = AlignedBytes::zeroed_aligned(local_len, local_align).ok_or_else(|| alloc_err("local memory", layout.total))?;
            l.set_label(&kernel_label, &local_label);
            Ok(l)
        };
        let new_scratch = || -> Result<AlignedBytes, ToolError> {
            let mut s = AlignedBytes::zeroed(scratch_len).ok_or_else(|| alloc_err("scratch", scratch_bytes))?;
            s.set_label(&kernel_label, &scratch_label);
            Ok(s)
        };

        // Values every worker shares: buffer addresses and scalar bytes.
        let shared: Vec<Option<u64>> = args
            .values
            .iter_mut()
            .map(|v| match v {
                // A struct's parameter is a pointer to its bytes, as a buffer's.
                ArgValue::Buffer(b) | ArgValue::Struct(b) => Some(b.as_mut_ptr() as u64),
                ArgValue::Scalar(s) => {
                    let mut le = [0u8; 8];
                    le[..s.ty.size()].copy_from_slice(s.as_bytes());
                    // In memory, the slot holds the scalar's little-endian bytes.
                    Some(u64::from_ne_bytes(le))
                }
                ArgValue::Local { .. } => None,
            })
            .collect();

        let buffers = args
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| match (v, shared[i]) {
                (ArgValue::Buffer(b), Some(addr)) => Some((i, addr, b.bytes().len())),
                _ => None,
            })
            .collect();

        // Interleave only if the ring of memory sets fits the budget.
        // (Not for non-uniform launches: one call runs work-groups of one size.)
        let ring = kernel
            .interleaved
            .map(|(_, r)| r)
            .filter(|&r| r.saturating_mul(layout.total + scratch_bytes) <= INTERLEAVE_MEMORY_BUDGET && grid.is_uniform());
        let n = rayon::current_num_threads().max(1);
        let mut workers = Vec::with_capacity(n);
        for _ in 0..n {
            let local = new_local()?;
            let scratch = new_scratch()?;
            let mut slots: Box<[u64]> = shared
                .iter()
                .zip(&layout.offsets)
                .map(|(value, offset)| match (value, offset) {
                    (Some(v), _) => *v,
                    (None, Some(off)) => local.as_ptr() as u64 + off,
                    (None, None) => unreachable!("a local argument has an offset"),
                })
                .collect();
            let arg_ptrs: Box<[*mut c_void]> = slots.iter_mut().map(|s| (s as *mut u64).cast::<c_void>()).collect();
            let ctx = context(&grid, [0; 3], local.as_ptr(), scratch.as_ptr());
            let mut sets = Vec::new();
            for _ in 1..ring.unwrap_or(1) {
                sets.push((new_local()?, new_scratch()?));
            }
            workers.push(Padded(Mutex::new(Worker {
                ctx,
                _slots: slots,
                arg_ptrs,
                local,
                scratch,
                ring: sets,
                ctxs: Vec::new(),
                pending_progress: 0,
            })));
        }
        Ok(Runner { kernel, grid, layout, scratch_bytes, workers, ring, buffers, _args: PhantomData })
    }

    /// Copies a snapshot of the arguments (taken before [`Runner::new`])
    /// back into their buffers, between runs (`--refill`).
    pub fn refill(&mut self, snapshot: &BufferSnapshot) {
        for (param, bytes) in &snapshot.0 {
            if let Some(&(_, addr, len)) = self.buffers.iter().find(|(p, ..)| p == param) {
                assert_eq!(len, bytes.len(), "a snapshot of the same arguments");
                // SAFETY: `addr` is the start of the `len` bytes of a buffer
                // the runner holds the exclusive borrow of (`_args`), and no
                // run is in progress (`&mut self`); the snapshot's own
                // allocation cannot overlap it.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), addr as *mut u8, len) };
            }
        }
    }

    /// Bytes of local memory per work-group (static + `__local` arguments).
    pub fn local_mem_bytes(&self) -> u64 {
        self.layout.total
    }

    /// Bytes of scratch per work-group.
    pub fn scratch_bytes(&self) -> u64 {
        self.scratch_bytes
    }

    /// The ring size when runs use the interleaved form, `None` otherwise.
    pub fn interleaving(&self) -> Option<u64> {
        self.ring
    }

    /// Workers (rayon threads) the runner was built for.
    pub fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Runs every work-group once. `progress` advances by one per work-group.
    pub fn run(&self, progress: Option<&ProgressBar>) -> Result<(), ToolError> {
        let total = self.grid.total_groups();
        let first_failed = AtomicU64::new(u64::MAX);
        let failure: Mutex<Option<Failure>> = Mutex::new(None);
        let n = self.workers.len();
        let wg_fn = self.kernel.wg_fn;

        // Chunks of consecutive work-groups: enough for load balance, few
        // enough that taking the worker's state is not paid per work-group.
        let chunks = total.min(n as u64 * CHUNKS_PER_WORKER).max(1);
        let per_chunk = total.div_ceil(chunks);
        let chunks = total.div_ceil(per_chunk);
        let grid = self.grid;
        let num_groups = grid.num_groups();

        // One chunk per rayon task (`with_max_len(1)`): left to rayon's
        // adaptive splitting, the range became a few long sequences (a
        // quarter of the chunks each with two workers) that no idle worker
        // could steal from, so a worker whose core another process shared
        // set the launch's time (issue 22: barrier kernels slowed 2x under
        // one busy process where a balanced run slows 1.5x).
        (0..chunks as usize).into_par_iter().with_max_len(1).for_each(|c| {
            let c = c as u64;
            crate::engine::guard::ensure_altstack();
            let idx = rayon::current_thread_index().unwrap_or(0) % n;
            let mut guard = self.workers[idx].0.lock().unwrap_or_else(|e| e.into_inner());
            let w = &mut *guard;
            let (local_mem, scratch) = (w.local.as_ptr(), w.scratch.as_ptr());
            if let (Some(ring), Some((wgi_fn, _))) = (self.ring, self.kernel.interleaved) {
                // One call runs the chunk; work-group j uses memory set j % ring.
                let groups = c * per_chunk..((c + 1) * per_chunk).min(total);
                w.ctxs.clear();
                for (j, g) in groups.clone().enumerate() {
                    let set = j as u64 % ring;
                    let (l, s) = if set == 0 {
                        (local_mem, scratch)
                    } else {
                        let (l, s) = &w.ring[set as usize - 1];
                        (l.as_ptr(), s.as_ptr())
                    };
                    let group_id = [g % num_groups[0], (g / num_groups[0]) % num_groups[1], g / (num_groups[0] * num_groups[1])];
                    w.ctxs.push(context(&grid, group_id, l, s));
                }
                let count = w.ctxs.len() as u32;
                crate::engine::guard::set_running(w.ctxs.first().map(|c| (c.group_id, count as u64)));
                // SAFETY: `arg_ptrs` points at this worker's slots, laid out
                // for the kernel's parameters (`Runner::new`); `ctxs` holds
                // `count` contexts, each pointing at one of the ring's memory
                // sets (set j % ring for the j-th), all owned by this worker,
                // which the lock keeps to this thread. That the function
                // keeps the `wg_abi` contract is `WgKernel`'s promise.
                let status = unsafe { wgi_fn(w.arg_ptrs.as_ptr().cast::<*mut c_void>(), w.ctxs.as_mut_ptr(), count) };
                crate::engine::guard::set_running(None);
                if status != STATUS_OK {
                    let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                    if f.is_none_or(|f| groups.start < f.group) {
                        *f = Some(Failure { group: groups.start, status, error: [0; 3], remainder: false });
                    }
                }
                if let Some(pb) = progress {
                    pb.inc(groups.end - groups.start);
                }
                return;
            }
            for g in c * per_chunk..((c + 1) * per_chunk).min(total) {
                // Work-groups after a failed one need not run.
                if g > first_failed.load(Ordering::Relaxed) {
                    break;
                }
                let group_id = [g % num_groups[0], (g / num_groups[0]) % num_groups[1], g / (num_groups[0] * num_groups[1])];
                w.ctx = context(&grid, group_id, local_mem, scratch);
                // A non-uniform launch's last work-groups are smaller: the
                // function not specialised for the local size runs them.
                let remainder = w.ctx.local_size != grid.local;
                let wg_fn = match self.kernel.remainder {
                    Some((f, _, _)) if remainder => f,
                    _ => wg_fn,
                };
                crate::engine::guard::set_running(Some((group_id, 1)));
                // SAFETY: `arg_ptrs` points at this worker's slots, laid out
                // for the kernel's parameters (`Runner::new`); `ctx` points
                // at this worker's local memory and scratch, sized for this
                // kernel and grid; the lock keeps all of it to this thread.
                // That the function keeps the `wg_abi` contract is
                // `WgKernel`'s promise.
                let status = unsafe { wg_fn(w.arg_ptrs.as_ptr().cast::<*mut c_void>(), &mut w.ctx) };
                if status != STATUS_OK {
                    let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
                    if f.is_none_or(|f| g < f.group) {
                        *f = Some(Failure { group: g, status, error: w.ctx.error, remainder });
                        first_failed.fetch_min(g, Ordering::Relaxed);
                    }
                }
                if let Some(pb) = progress {
                    w.pending_progress += 1;
                    if w.pending_progress >= PROGRESS_STEP {
                        pb.inc(w.pending_progress);
                        w.pending_progress = 0;
                    }
                }
            }
            crate::engine::guard::set_running(None);
        });
        for w in &self.workers {
            let mut w = w.0.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(pb) = progress {
                pb.inc(w.pending_progress);
            }
            w.pending_progress = 0;
        }
        match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
            None => Ok(()),
            Some(f) => Err(self.failure_error(f)),
        }
    }

    fn failure_error(&self, f: Failure) -> ToolError {
        let [x, y, z] = self.grid.group_id(f.group);
        let k = self.kernel.name;
        if f.status == STATUS_BARRIER_DIVERGENCE {
            let names = match self.kernel.remainder {
                Some((_, _, names)) if f.remainder => names,
                _ => self.kernel.barrier_names,
            };
            let name = |id: u32| names.get(id as usize).cloned().unwrap_or_else(|| format!("barrier #{id}"));
            ToolError::Run(format!(
                "kernel '{k}': work-items of work-group ({x},{y},{z}) reached different barriers: {} and {}",
                name(f.error[0]),
                name(f.error[1]),
            ))
        } else if f.status == simt_passes::wg_abi::STATUS_WRONG_LOCAL_SIZE {
            ToolError::Run(format!(
                "kernel '{k}': the work-group function was compiled for another work-group size than {:?} (work-group ({x},{y},{z}))",
                self.grid.group_local([x, y, z])
            ))
        } else {
            ToolError::Run(format!("kernel '{k}': work-group ({x},{y},{z}) returned unknown status {}", f.status))
        }
    }
}

/// What local memory holds, for fault messages: `local memory (N bytes per
/// work-group; …)` with the static variables' and each `__local`
/// argument's offsets, after the emulator's `local memory (N bytes per
/// work-group)`.
fn local_label(layout: &LocalLayout, args: &KernelArgs) -> String {
    let mut parts = Vec::new();
    if layout.static_bytes > 0 {
        parts.push(format!("__local variables at 0..{}", layout.static_bytes));
    }
    for (i, (v, off)) in args.values.iter().zip(&layout.offsets).enumerate() {
        if let (ArgValue::Local { ty, count }, Some(off)) = (v, off) {
            parts.push(format!("argument {i} (local:{ty}:{count}) at {off}..{}", off + count * ty.size() as u64));
        }
    }
    let mut s = format!("local memory ({} bytes per work-group", layout.total);
    if !parts.is_empty() {
        s.push_str("; ");
        s.push_str(&parts.join(", "));
    }
    s.push(')');
    s
}

fn context(grid: &Grid, group_id: [u64; 3], local_mem: *mut u8, scratch: *mut u8) -> WgContext {
    WgContext {
        group_id,
        num_groups: grid.num_groups(),
        local_size: grid.group_local(group_id),
        global_offset: grid.global_offset,
        work_dim: grid.work_dim,
        error: [0; 3],
        local_mem,
        scratch,
        enqueued_local_size: grid.local,
        global_size: grid.global,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::ArgSpec;

    fn args(texts: &[&str]) -> KernelArgs {
        let specs: Vec<ArgSpec> = texts.iter().map(|t| ArgSpec::parse(t, None).unwrap()).collect();
        KernelArgs::new(&specs).unwrap()
    }

    fn f32s(a: &KernelArgs, i: usize) -> Vec<f32> {
        match &a.values[i] {
            ArgValue::Buffer(b) => b.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect(),
            _ => panic!("not a buffer"),
        }
    }

    fn u32s(a: &KernelArgs, i: usize) -> Vec<u32> {
        match &a.values[i] {
            ArgValue::Buffer(b) => b.bytes().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect(),
            _ => panic!("not a buffer"),
        }
    }

    /// Reads parameter `i` as a buffer address, per the ABI.
    ///
    /// # Safety
    /// `args` is a work-group function's `args` array and parameter `i` a
    /// buffer or `__local` argument.
    unsafe fn buf<T>(args: *const *mut c_void, i: usize) -> *mut T {
        // SAFETY: entry `i` exists and points at a slot holding an address
        // (the caller's promise); slots are `u64`s, aligned for a pointer.
        unsafe { *(*args.add(i) as *const *mut T) }
    }

    /// Reads parameter `i` as a scalar.
    ///
    /// # Safety
    /// `args` is a work-group function's `args` array and parameter `i` a
    /// scalar of type `T` (at most 8 bytes).
    unsafe fn scalar<T: Copy>(args: *const *mut c_void, i: usize) -> T {
        // SAFETY: entry `i` exists and points at an 8-byte, 8-aligned slot
        // whose first bytes are a `T` (the caller's promise).
        unsafe { *(*args.add(i) as *const T) }
    }

    /// c[i] = a[i] + b[i] for i < n: (a, b, c, n: u32), 1-D.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with the arguments of the test
    /// that uses it.
    unsafe extern "C" fn vadd(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: the runner passes a live context and the args of
        // `vector_add_matches_rust`: three f32 buffers of `n + 17` elements
        // and `n`; only elements below `n` are touched.
        unsafe {
            let ctx = &*ctx;
            let (a, b, c) = (buf::<f32>(args, 0), buf::<f32>(args, 1), buf::<f32>(args, 2));
            let n: u32 = scalar(args, 3);
            for lid in 0..ctx.local_size[0] {
                let gid = ctx.group_id[0] * ctx.local_size[0] + lid + ctx.global_offset[0];
                if gid < n as u64 {
                    *c.add(gid as usize) = *a.add(gid as usize) + *b.add(gid as usize);
                }
            }
        }
        STATUS_OK
    }

    fn names() -> Vec<String> {
        vec!["entry".into(), "k.cl:7:5".into(), "k.cl:12:9".into(), "exit".into()]
    }

    /// # Safety
    /// `wg_fn` keeps the `wg_abi` contract for the arguments its test passes
    /// ([`WgKernel::new`]).
    unsafe fn kernel<'a>(
        name: &'static str,
        wg_fn: WgFn,
        scratch_per_item: u64,
        local_bytes: u64,
        barrier_names: &'a [String],
    ) -> WgKernel<'a> {
        // SAFETY: passed on to the caller.
        unsafe { WgKernel::new(name, wg_fn, scratch_per_item, local_bytes, barrier_names, None) }
    }

    #[test]
    fn vector_add_matches_rust() {
        let n = 10_000u32;
        let mut a =
            args(&[&format!("buf:f32:{n}=rand:1"), &format!("buf:f32:{n}=ramp"), &format!("buf:f32:{n}"), &format!("u32:{}", n - 17)]);
        let want: Vec<f32> =
            f32s(&a, 0).iter().zip(f32s(&a, 1)).enumerate().map(|(i, (x, y))| if i < (n - 17) as usize { x + y } else { 0.0 }).collect();
        let grid = Grid::new(&[n as u64], &[100], None).unwrap();
        let bn = names();
        // SAFETY: `vadd` reads three f32 buffers and a u32 `n` of `a` and touches elements below `n`; it needs no scratch or local memory.
        let runner = Runner::new(unsafe { kernel("vadd", vadd, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap();
        runner.run(None).unwrap();
        drop(runner);
        assert_eq!(f32s(&a, 2), want);
        assert!(f32s(&a, 2)[..100].iter().any(|&x| x != 0.0));
    }

    /// Work-groups run per pool thread, for `a_busy_worker_keeps_few_groups`.
    static RAN_ON: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];

    /// Counts the work-group on its pool thread; on thread 0 (the one whose
    /// core is "shared with another process") it takes 2 ms.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`; touches no memory of the launch.
    unsafe extern "C" fn slow_on_thread_0(_args: *const *mut c_void, _ctx: *mut WgContext) -> u32 {
        let t = rayon::current_thread_index().unwrap_or(0).min(1);
        RAN_ON[t].fetch_add(1, Ordering::SeqCst);
        if t == 0 {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        STATUS_OK
    }

    /// The issue-22 finding under load: when one worker's core is shared
    /// with another process, the other worker must take over the rest of
    /// the launch, chunk by chunk. Handed out by rayon's adaptive splitting
    /// alone, each worker ran a fixed quarter or half of the chunks as one
    /// unsplittable sequence, and the slow one set the time.
    #[test]
    fn a_busy_worker_keeps_few_groups() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        let mut a = args(&["buf:f32:4"]);
        let grid = Grid::new(&[128 * 4], &[4], None).unwrap();
        let bn = names();
        pool.install(|| {
            // SAFETY: `slow_on_thread_0` touches no memory.
            let runner = Runner::new(unsafe { kernel("slow", slow_on_thread_0, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap();
            runner.run(None).unwrap();
        });
        let [slow, fast] = [0, 1].map(|t| RAN_ON[t].load(Ordering::SeqCst));
        assert_eq!(slow + fast, 128);
        // 128 groups of 2 ms would be 256 ms on the slow thread alone; the
        // fast one, whose groups take no time, should leave it a handful.
        assert!(slow <= 8, "the busy worker ran {slow} of 128 work-groups");
    }

    /// out[gy * W + gx] = (gx << 16) | gy over a 2-D grid with a global
    /// offset: checks group ids, num_groups, local sizes, work_dim.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with the arguments of the test
    /// that uses it.
    unsafe extern "C" fn grid2d(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: the runner passes a live context and one u32 buffer of
        // W * H elements; the grid divides evenly, so every index written,
        // `gy * W + gx` with `gx < W` and `gy < H`, is in it.
        unsafe {
            let ctx = &*ctx;
            if ctx.work_dim != 2 || ctx.local_size[2] != 1 || ctx.num_groups[2] != 1 || ctx.group_id[2] != 0 {
                return 9;
            }
            let out = buf::<u32>(args, 0);
            let width = ctx.num_groups[0] * ctx.local_size[0];
            for ly in 0..ctx.local_size[1] {
                for lx in 0..ctx.local_size[0] {
                    let gx = ctx.group_id[0] * ctx.local_size[0] + lx;
                    let gy = ctx.group_id[1] * ctx.local_size[1] + ly;
                    let (ox, oy) = (gx + ctx.global_offset[0], gy + ctx.global_offset[1]);
                    *out.add((gy * width + gx) as usize) = ((ox << 16) | oy) as u32;
                }
            }
        }
        STATUS_OK
    }

    #[test]
    fn two_dimensional_grid_with_offset() {
        let (w, h) = (48u64, 20u64);
        let mut a = args(&[&format!("buf:u32:{}", w * h)]);
        let grid = Grid::new(&[w, h], &[16, 4], Some(&[3, 5])).unwrap();
        let bn = names();
        // SAFETY: `grid2d` writes one u32 per work-item into the `w * h` buffer of `a`, nothing else.
        Runner::new(unsafe { kernel("g", grid2d, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap().run(None).unwrap();
        let got = u32s(&a, 0);
        for y in 0..h {
            for x in 0..w {
                assert_eq!(got[(y * w + x) as usize], (((x + 3) << 16) | (y + 5)) as u32, "({x},{y})");
            }
        }
    }

    const STATIC_LOCAL: u64 = 100;

    /// Per-group sums through local memory and scratch: (in: f32*, out: f32*,
    /// tmp: __local f32*). Phase 1: every work-item keeps in[gid] * 2 in its
    /// scratch slot and copies it to tmp[lid]; phase 2 (after the "barrier"):
    /// work-item 0 sums tmp into out[group]. Also checks the ABI's promises:
    /// alignment, tmp placed after the static bytes, local memory zeroed.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with the arguments of the test
    /// that uses it.
    unsafe extern "C" fn group_sum(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: the runner passes a live context and the args of
        // `local_memory_and_scratch`: `groups * items` inputs, `groups`
        // outputs, and `tmp` = `items` f32s of local memory. Local memory
        // (128 static bytes then `tmp`, checked) and scratch (4 bytes per
        // work-item, 64-aligned, checked) are this worker's own, sized by the
        // runner for this kernel; `local` and `scratch` do not overlap, and
        // `tmp` is only used through the pointer after `local` is last used.
        unsafe {
            let ctx = &mut *ctx;
            let (input, out) = (buf::<f32>(args, 0), buf::<f32>(args, 1));
            let tmp = buf::<f32>(args, 2);
            let items = ctx.local_size[0] as usize;
            if !(ctx.local_mem as usize).is_multiple_of(64) || !(ctx.scratch as usize).is_multiple_of(64) {
                return 10;
            }
            if tmp as usize != ctx.local_mem as usize + 128 {
                return 11;
            }
            let local = std::slice::from_raw_parts_mut(ctx.local_mem, 128 + items * 4);
            // Dirty the static bytes, as a kernel's __local variables would: the
            // next work-group must not depend on them being cleared.
            local[..STATIC_LOCAL as usize].fill(0xAB);
            let scratch = std::slice::from_raw_parts_mut(ctx.scratch.cast::<f32>(), items);
            for (lid, slot) in scratch.iter_mut().enumerate() {
                let gid = ctx.group_id[0] as usize * items + lid;
                *slot = *input.add(gid) * 2.0;
                *tmp.add(lid) = *slot;
            }
            let mut sum = 0.0f32;
            for lid in 0..items {
                sum += *tmp.add(lid);
            }
            *out.add(ctx.group_id[0] as usize) = sum;
        }
        STATUS_OK
    }

    #[test]
    fn local_memory_and_scratch() {
        let (groups, items) = (300usize, 32usize);
        let mut a = args(&[&format!("buf:f32:{}=rand:5", groups * items), &format!("buf:f32:{groups}"), &format!("local:f32:{items}")]);
        let input = f32s(&a, 0);
        let grid = Grid::new(&[(groups * items) as u64], &[items as u64], None).unwrap();
        let bn = names();
        // SAFETY: `group_sum` reads the input, writes one sum per group and uses 4 bytes of scratch per item and STATIC_LOCAL static bytes plus its `__local` argument, as declared here.
        let runner = Runner::new(unsafe { kernel("group_sum", group_sum, 4, STATIC_LOCAL, &bn) }, grid, &mut a, 1 << 18).unwrap();
        assert_eq!(runner.local_mem_bytes(), 128 + 4 * items as u64);
        assert_eq!(runner.scratch_bytes(), 4 * items as u64);
        runner.run(None).unwrap();
        // And again: the same state is reused.
        runner.run(None).unwrap();
        drop(runner);
        let want: Vec<f32> = input.chunks(items).map(|c| c.iter().fold(0.0f32, |s, x| s + x * 2.0)).collect();
        assert_eq!(f32s(&a, 1), want);
    }

    /// x[i] += 1 in place: each run sees the previous run's output.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with the arguments of the test
    /// that uses it.
    unsafe extern "C" fn increment(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: the runner passes a live context and one u32 buffer of
        // 4096 elements, the grid's size, so every global id indexes it; each
        // work-group touches only its own elements.
        unsafe {
            let ctx = &*ctx;
            let x = buf::<u32>(args, 0);
            for lid in 0..ctx.local_size[0] {
                *x.add((ctx.group_id[0] * ctx.local_size[0] + lid) as usize) += 1;
            }
        }
        STATUS_OK
    }

    #[test]
    fn repeated_runs_update_in_place() {
        let mut a = args(&["buf:u32:4096=ramp"]);
        let grid = Grid::new(&[4096], &[64], None).unwrap();
        let bn = names();
        // SAFETY: `increment` adds 1 to one u32 per work-item of the 4096-element buffer, nothing else.
        let runner = Runner::new(unsafe { kernel("inc", increment, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap();
        let pb = ProgressBar::hidden();
        pb.set_length(3 * 64);
        for _ in 0..3 {
            runner.run(Some(&pb)).unwrap();
        }
        assert_eq!(pb.position(), 3 * 64);
        drop(runner);
        assert_eq!(u32s(&a, 0), (0..4096u32).map(|i| i + 3).collect::<Vec<_>>());
    }

    /// Work-groups 2 and 5 (of 1-D) and (1,1,0) (of 2-D) report divergence.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with the arguments of the test
    /// that uses it.
    unsafe extern "C" fn diverges(_args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: the runner passes a live context, this worker's alone for
        // the call.
        let ctx = unsafe { &mut *ctx };
        let g = ctx.group_id;
        if g == [2, 0, 0] || g == [5, 0, 0] || g == [1, 1, 0] {
            ctx.error = [1, 2, 7 + g[0] as u32];
            return STATUS_BARRIER_DIVERGENCE;
        }
        STATUS_OK
    }

    #[test]
    fn barrier_divergence_names_the_lowest_group() {
        let bn = names();
        for _ in 0..5 {
            let mut a = args(&["i32:0"]);
            let grid = Grid::new(&[1000 * 8], &[8], None).unwrap();
            // SAFETY: `diverges` touches no argument or memory: it only reports barrier ids through its context.
            let e = Runner::new(unsafe { kernel("k", diverges, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap().run(None).unwrap_err();
            assert_eq!(
                e.to_string(),
                "error: kernel 'k': work-items of work-group (2,0,0) reached different barriers: k.cl:7:5 and k.cl:12:9"
            );
            assert_eq!(e.exit_code(), 1);
        }
        let mut a = args(&["i32:0"]);
        let grid = Grid::new(&[4, 4], &[2, 2], None).unwrap();
        // SAFETY: `diverges` touches no argument or memory: it only reports barrier ids through its context.
        let e = Runner::new(unsafe { kernel("k", diverges, 0, 0, &bn[..2]) }, grid, &mut a, 1 << 18).unwrap().run(None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: kernel 'k': work-items of work-group (1,1,0) reached different barriers: k.cl:7:5 and barrier #2"
        );
    }

    /// Writes, per work-item of a 1-D launch, `local_size * 1000 + enqueued`
    /// at its global id (group * enqueued + lid); specialised for local size
    /// 8 like `simt-wiloops<local-size=8,1,1>`: any other size is refused.
    ///
    /// # Safety
    /// Called by the runner per `wg_abi`, with one u32 buffer of the
    /// launch's global size.
    unsafe extern "C" fn sizes_for_8(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: a live context; only its sizes are read here.
        if unsafe { (*ctx).local_size } != [8, 1, 1] {
            return simt_passes::wg_abi::STATUS_WRONG_LOCAL_SIZE;
        }
        // SAFETY: as `sizes_any`'s.
        unsafe { sizes_any(args, ctx) }
    }

    /// # Safety
    /// As `sizes_for_8`, for any local size.
    unsafe extern "C" fn sizes_any(args: *const *mut c_void, ctx: *mut WgContext) -> u32 {
        // SAFETY: a live context and one u32 buffer of the global size;
        // every global id written, group * enqueued + lid with lid below
        // this group's size, is below it.
        unsafe {
            let ctx = &*ctx;
            let out = buf::<u32>(args, 0);
            for lid in 0..ctx.local_size[0] {
                let gid = ctx.group_id[0] * ctx.enqueued_local_size[0] + lid;
                if gid >= ctx.global_size[0] {
                    return 9;
                }
                *out.add(gid as usize) = (ctx.local_size[0] * 1000 + ctx.enqueued_local_size[0]) as u32;
            }
        }
        STATUS_OK
    }

    #[test]
    fn non_uniform_groups_run_the_remainder_function() {
        let bn = names();
        let grid = Grid::checked(&[21], &[8], None, false).unwrap();
        let mut a = args(&["buf:u32:21"]);
        // SAFETY: both functions write one u32 per work-item of the 21-element buffer.
        let (full, any) = unsafe { (kernel("k", sizes_for_8, 0, 0, &bn), kernel("k", sizes_any, 0, 0, &bn)) };
        Runner::new(full.with_remainder(any).unwrap(), grid, &mut a, 1 << 18).unwrap().run(None).unwrap();
        let want: Vec<u32> = (0..21).map(|i| if i < 16 { 8008 } else { 5008 }).collect();
        assert_eq!(u32s(&a, 0), want);
        // Without the remainder function, the specialised one refuses the last group.
        let mut a = args(&["buf:u32:21"]);
        let e = Runner::new(full, grid, &mut a, 1 << 18).unwrap().run(None).unwrap_err();
        assert!(e.to_string().contains("compiled for another work-group size than [5, 1, 1] (work-group (2,0,0))"), "{e}");
    }

    /// A kernel compiled on the fact that the launch's ids fit in an `int`
    /// runs on grids that keep it, to i32::MAX exactly, and is refused on
    /// one id past it (global offset + size), before any work-group runs.
    #[test]
    fn code_for_ids_below_2_31_refuses_larger_grids() {
        let max = i32::MAX as u64;
        let fits = |global: &[u64], local: &[u64], offset: &[u64]| Grid::new(global, local, Some(offset)).unwrap().ids_fit_i32();
        assert!(fits(&[16], &[4], &[max - 16]));
        assert!(!fits(&[16], &[4], &[max - 15]));
        assert!(fits(&[4, 16], &[4, 4], &[0, max - 16]) && !fits(&[4, 16], &[4, 4], &[0, max - 15]));
        let bn = names();
        let mut a = args(&["local:f32:64"]);
        // SAFETY: `bad_status` touches nothing and returns a status.
        let k = unsafe { kernel("k", bad_status, 0, 0, &bn) }.for_ids_fit_i32(true);
        let grid = Grid::new(&[16], &[4], Some(&[max - 15])).unwrap();
        let e = Runner::new(k, grid, &mut a, 1 << 18).err().unwrap();
        assert!(e.to_string().contains("compiled for grids whose ids and sizes are below 2^31"), "{e}");
        // The same kernel on a grid that fits gets as far as running.
        let grid = Grid::new(&[16], &[4], Some(&[max - 16])).unwrap();
        let e = Runner::new(k, grid, &mut a, 1 << 18).unwrap().run(None).unwrap_err();
        assert!(e.to_string().contains("unknown status 7"), "{e}");
    }

    /// # Safety
    /// None: it touches nothing.
    unsafe extern "C" fn bad_status(_args: *const *mut c_void, _ctx: *mut WgContext) -> u32 {
        7
    }

    #[test]
    fn unknown_status_and_local_limit() {
        let bn = names();
        let mut a = args(&["local:f32:64"]);
        let grid = Grid::new(&[16], &[4], None).unwrap();
        // SAFETY: `bad_status` touches nothing and returns a status.
        let e = Runner::new(unsafe { kernel("k", bad_status, 0, 0, &bn) }, grid, &mut a, 1 << 18).unwrap().run(None).unwrap_err();
        assert_eq!(e.to_string(), "error: kernel 'k': work-group (0,0,0) returned unknown status 7");
        // 1000 static bytes + 256 (at offset 1024) = 1280.
        // SAFETY: `bad_status` touches nothing and returns a status.
        let e = Runner::new(unsafe { kernel("k", bad_status, 0, 1000, &bn) }, grid, &mut a, 1279).err().unwrap();
        assert!(
            e.to_string().contains(
                "needs 1280 bytes of local memory per work-group (1000 static + 280 for __local arguments), over the limit of 1279 bytes"
            ),
            "{e}"
        );
        // SAFETY: `bad_status` touches nothing and returns a status.
        assert!(Runner::new(unsafe { kernel("k", bad_status, 0, 1000, &bn) }, grid, &mut a, 1280).is_ok());
    }
}
