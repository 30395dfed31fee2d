mod common;
use std::time::Duration;
use cuplan_mapf::*;
#[test]
fn dbg() {
    let inst = common::random_instance(5, 2, 9, 3, 8381992004185957782).unwrap();
    eprintln!("{}", inst.grid().to_movingai_string());
    eprintln!("{:?} {:?}", inst.starts(), inst.goals());
    eprintln!("opt {:?}", common::optimal_soc(&inst));
    let cfg = SolverConfig { time_limit: Duration::from_secs(2), ..Default::default() };
    eprintln!("{:?}", solve(&inst, Solver::Lacam, &cfg));
    eprintln!("{:?}", solve(&inst, Solver::Cbs, &cfg));
}
