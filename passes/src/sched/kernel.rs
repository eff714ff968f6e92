//! A loop's kernel, scheduled and bundled: the figures of one
//! `loop %H: res-mii=… ii=… cycles=… split-issues=… bundler=…` line and the
//! cycle-by-cycle listing behind it.

use super::automaton::Automaton;
use super::bundle::{BundleError, Bundler, Packing};
use super::ddg::Ddg;
use super::machine::Machine;
use super::modulo::{self, SchedError, Schedule};

#[derive(Clone, Debug)]
pub struct Kernel {
    pub res_mii: u32,
    pub rec_mii: u32,
    pub schedule: Schedule,
    pub bundler: Bundler,
    /// Per row (cycle mod II): its ops packed into issue cycles.
    pub rows: Vec<Packing>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KernelError {
    #[error(transparent)]
    Schedule(#[from] SchedError),
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

impl Kernel {
    /// Schedules `g` (or takes its given flat schedule) and bundles each row.
    pub fn build(m: &Machine, a: &Automaton, g: &Ddg, bundler: Bundler) -> Result<Kernel, KernelError> {
        let (res_mii, rec_mii) = (modulo::res_mii(g, a), modulo::rec_mii(g)?);
        let schedule = match (g.ii, g.given_times()) {
            (Some(ii), Some(time)) if !g.is_empty() => Schedule { ii, time },
            _ => modulo::schedule(g, a)?.schedule,
        };
        Kernel::bundle(m, a, g, res_mii, rec_mii, schedule, bundler)
    }

    pub fn bundle(
        m: &Machine,
        a: &Automaton,
        g: &Ddg,
        res_mii: u32,
        rec_mii: u32,
        schedule: Schedule,
        bundler: Bundler,
    ) -> Result<Kernel, KernelError> {
        let stage: Vec<u32> = (0..g.len()).map(|o| schedule.stage(o)).collect();
        let rows = schedule.rows().iter().map(|row| bundler.pack(m, a, g, &stage, row)).collect::<Result<_, _>>()?;
        Ok(Kernel { res_mii, rec_mii, schedule, bundler, rows })
    }

    pub fn stages(&self) -> Vec<u32> {
        (0..self.schedule.time.len()).map(|o| self.schedule.stage(o)).collect()
    }

    /// Issue cycles of one kernel iteration.
    pub fn cycles(&self) -> usize {
        self.rows.iter().map(Packing::num_cycles).sum()
    }

    pub fn bundles(&self) -> usize {
        self.rows.iter().map(Packing::num_bundles).sum()
    }

    pub fn nops(&self, m: &Machine) -> usize {
        self.rows.iter().map(|r| r.num_nops(m)).sum()
    }

    /// Rows the scheduler meant for one cycle that took more.
    pub fn split_issues(&self) -> usize {
        self.rows.iter().filter(|r| r.num_cycles() > 1).count()
    }

    /// `res-mii=A rec-mii=B ii=C stages=D cycles=E bundles=F nops=G split-issues=H bundler=X`
    pub fn summary(&self, m: &Machine) -> String {
        format!(
            "res-mii={} rec-mii={} ii={} stages={} cycles={} bundles={} nops={} split-issues={} bundler={}",
            self.res_mii,
            self.rec_mii,
            self.schedule.ii,
            self.schedule.stage_count(),
            self.cycles(),
            self.bundles(),
            self.nops(m),
            self.split_issues(),
            self.bundler.name()
        )
    }

    /// The kernel row by row: `  row 0 cycle 0: MII[a b c] MMI[d e f]`, and
    /// each op's flat cycle and stage.
    pub fn listing(&self, m: &Machine, g: &Ddg, indent: &str) -> String {
        let mut out = String::new();
        for (r, p) in self.rows.iter().enumerate() {
            if p.cycles.is_empty() {
                out += &format!("{indent}row {r} cycle 0: (empty)\n");
            }
            for (c, cycle) in p.cycles.iter().enumerate() {
                let bundles: Vec<String> = cycle.iter().map(|b| super::bundle::render_bundle(m, g, b)).collect();
                out += &format!("{indent}row {r} cycle {c}: {}\n", bundles.join(" "));
            }
        }
        let ops: Vec<String> =
            (0..g.len()).map(|o| format!("{}@{}/s{}", g.ops[o].id, self.schedule.time[o], self.schedule.stage(o))).collect();
        out += &format!("{indent}flat: {}\n", ops.join(" "));
        out
    }
}
