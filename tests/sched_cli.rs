//! simt-sched's exit codes: 0 for a schedule, 1 for bad input (with file and
//! line), 2 for a usage mistake (unknown machine, unknown option).

use assert_cmd::Command;
use predicates::str::contains;

fn sched() -> Command {
    Command::cargo_bin("simt-sched").unwrap()
}

#[test]
fn exit_codes() {
    let good = "op a ld M\nop b add A\narc a -> b latency=2\narc b -> a latency=1 omega=1\n";
    sched().arg("-").write_stdin(good).assert().code(0).stdout(contains("ddg <stdin>: res-mii=1 rec-mii=3 ii=3"));
    sched()
        .arg("-")
        .write_stdin("op a ld M\narc a -> q latency=1\n")
        .assert()
        .code(1)
        .stderr(contains("<stdin>:2: error: arc names op 'q'"));
    // A cycle of distance 0 cannot be scheduled at any II.
    sched()
        .arg("-")
        .write_stdin("op a x A\nop b y A\narc a -> b latency=1\narc b -> a latency=1\n")
        .assert()
        .code(1)
        .stderr(contains("distance 0"));
    sched().args(["-", "--machine", "vax"]).write_stdin(good).assert().code(2).stderr(contains("unknown machine 'vax'"));
    sched().args(["-", "--bundler", "greedy"]).write_stdin(good).assert().code(2);
    sched().arg("/nonexistent.ddg").assert().code(1).stderr(contains("/nonexistent.ddg: error:"));
}
