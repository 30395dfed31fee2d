//! `Solution`: one timed path per agent, its costs and an independent validator.

use cuplan_grid::Cell;

use crate::Instance;

/// One path per agent: `paths[i][t]` is agent `i`'s cell at time `t`, from `t = 0`. After the
/// last entry the agent stays on its last cell (its goal, in a valid solution) forever.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Solution {
    /// The timed paths, one per agent, in agent order.
    pub paths: Vec<Vec<Cell>>,
}

/// The first thing wrong with a [`Solution`], in the order [`Solution::validate`] checks:
/// the agent count, then each agent's own path (agent order: empty, bounds, obstacles, start,
/// adjacency, goal), then conflicts in time order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum Violation {
    /// Not one path per agent.
    #[error("{found} paths for {expected} agents")]
    WrongAgentCount {
        /// Agents in the instance.
        expected: usize,
        /// Paths in the solution.
        found: usize,
    },
    /// A path with no cells.
    #[error("agent {agent}: empty path")]
    EmptyPath {
        /// The agent.
        agent: usize,
    },
    /// A cell outside the map.
    #[error("agent {agent} at t={t}: {cell} is outside the map")]
    OutOfBounds {
        /// The agent.
        agent: usize,
        /// The time.
        t: usize,
        /// The cell.
        cell: Cell,
    },
    /// A blocked cell.
    #[error("agent {agent} at t={t}: {cell} is blocked")]
    Obstacle {
        /// The agent.
        agent: usize,
        /// The time.
        t: usize,
        /// The cell.
        cell: Cell,
    },
    /// The path does not start at the agent's start.
    #[error("agent {agent}: path starts at {found}, its start is {expected}")]
    WrongStart {
        /// The agent.
        agent: usize,
        /// The instance's start.
        expected: Cell,
        /// The path's first cell.
        found: Cell,
    },
    /// Consecutive cells that are neither equal nor 4-adjacent.
    #[error("agent {agent}: illegal move {from} -> {to} between t={t} and t={}", t + 1)]
    NotAdjacent {
        /// The agent.
        agent: usize,
        /// Time of `from`.
        t: usize,
        /// Cell at `t`.
        from: Cell,
        /// Cell at `t + 1`.
        to: Cell,
    },
    /// The path does not end at the agent's goal.
    #[error("agent {agent}: path ends at {found}, its goal is {expected}")]
    WrongGoal {
        /// The agent.
        agent: usize,
        /// The instance's goal.
        expected: Cell,
        /// The path's last cell.
        found: Cell,
    },
    /// Two agents on one cell at one time (an agent that has finished occupies its goal).
    #[error("vertex conflict: agents {a} and {b} both at {cell} at t={t}")]
    VertexConflict {
        /// The lower agent index.
        a: usize,
        /// The higher agent index.
        b: usize,
        /// The time.
        t: usize,
        /// The shared cell.
        cell: Cell,
    },
    /// Two agents exchanging cells along one edge in one step.
    #[error("swap conflict: agent {a} moves {from} -> {to} while agent {b} moves back, t={t}->{}", t + 1)]
    SwapConflict {
        /// One agent.
        a: usize,
        /// The other.
        b: usize,
        /// Departure time.
        t: usize,
        /// `a`'s cell at `t` (and `b`'s at `t + 1`).
        from: Cell,
        /// `a`'s cell at `t + 1` (and `b`'s at `t`).
        to: Cell,
    },
}

impl Solution {
    /// Agent `i`'s cost: the time it last arrives at its final cell and stays there (a path
    /// `[s, g, g]` costs 1).
    pub fn agent_cost(path: &[Cell]) -> u64 {
        let Some(&last) = path.last() else { return 0 };
        let stay = path.iter().rev().take_while(|&&c| c == last).count();
        (path.len() - stay) as u64
    }

    /// Sum of costs.
    pub fn soc(&self) -> u64 {
        self.paths.iter().map(|p| Solution::agent_cost(p)).sum()
    }

    /// The largest agent cost.
    pub fn makespan(&self) -> u64 {
        self.paths
            .iter()
            .map(|p| Solution::agent_cost(p))
            .max()
            .unwrap_or(0)
    }

    /// Checks everything classic MAPF requires and reports the first violation. Runs in
    /// O(cells + total path length) with dense per-cell tables.
    pub fn validate(&self, instance: &Instance) -> Result<(), Violation> {
        if self.paths.len() != instance.num_agents() {
            return Err(Violation::WrongAgentCount {
                expected: instance.num_agents(),
                found: self.paths.len(),
            });
        }
        for (agent, path) in self.paths.iter().enumerate() {
            check_own_path(instance, agent, path)?;
        }
        check_conflicts(instance, &self.paths)
    }
}

fn check_own_path(instance: &Instance, agent: usize, path: &[Cell]) -> Result<(), Violation> {
    let grid = instance.grid();
    let (&first, &last) = match (path.first(), path.last()) {
        (Some(f), Some(l)) => (f, l),
        _ => return Err(Violation::EmptyPath { agent }),
    };
    for (t, &cell) in path.iter().enumerate() {
        if !grid.contains(cell) {
            return Err(Violation::OutOfBounds { agent, t, cell });
        }
        if !grid.is_free(cell) {
            return Err(Violation::Obstacle { agent, t, cell });
        }
    }
    if first != instance.starts()[agent] {
        return Err(Violation::WrongStart {
            agent,
            expected: instance.starts()[agent],
            found: first,
        });
    }
    for (t, w) in path.windows(2).enumerate() {
        if w[0].manhattan(w[1]) > 1 {
            return Err(Violation::NotAdjacent {
                agent,
                t,
                from: w[0],
                to: w[1],
            });
        }
    }
    if last != instance.goals()[agent] {
        return Err(Violation::WrongGoal {
            agent,
            expected: instance.goals()[agent],
            found: last,
        });
    }
    Ok(())
}

const NOBODY: u32 = u32::MAX;

/// Who stood on a cell at which time: one stamped slot per cell and time parity.
#[derive(Clone, Copy)]
struct Stamp {
    agent: u32,
    t: u32,
}

/// Conflicts, time-major. Only agents still moving at `t` are visited at `t`; finished agents
/// are represented by `rest[cell] = (agent, arrival)`, so the work is O(total path length).
fn check_conflicts(instance: &Instance, paths: &[Vec<Cell>]) -> Result<(), Violation> {
    let grid = instance.grid();
    let index = |c: Cell| grid.index(c).get();
    let cells = grid.cell_count();
    let empty = Stamp {
        agent: NOBODY,
        t: u32::MAX,
    };
    let mut occupied = [vec![empty; cells], vec![empty; cells]];
    let mut rest = vec![empty; cells];
    for (agent, path) in paths.iter().enumerate() {
        let arrival = path.len() - 1;
        rest[index(path[arrival])] = Stamp {
            agent: agent as u32,
            t: arrival as u32,
        };
    }
    // Agents ordered by path length, so the still-moving ones at time t are a suffix.
    let mut by_len: Vec<usize> = (0..paths.len()).collect();
    by_len.sort_by_key(|&a| paths[a].len());
    let horizon = paths.iter().map(Vec::len).max().unwrap_or(0);
    let mut first_active = 0;
    for t in 0..horizon {
        while first_active < by_len.len() && paths[by_len[first_active]].len() <= t {
            first_active += 1;
        }
        let (now, before) = if t % 2 == 0 {
            let [a, b] = &mut occupied;
            (a, &*b)
        } else {
            let [a, b] = &mut occupied;
            (b, &*a)
        };
        for &agent in &by_len[first_active..] {
            let cell = paths[agent][t];
            let v = index(cell);
            let slot = now[v];
            if slot.t == t as u32 && slot.agent != NOBODY {
                return Err(vertex(slot.agent as usize, agent, t, cell));
            }
            let r = rest[v];
            if r.agent != NOBODY && r.agent as usize != agent && (r.t as usize) < t {
                return Err(vertex(r.agent as usize, agent, t, cell));
            }
            now[v] = Stamp {
                agent: agent as u32,
                t: t as u32,
            };
            if t > 0 {
                let from = paths[agent][t - 1];
                let prev = before[v];
                if from != cell && prev.t == (t - 1) as u32 && prev.agent as usize != agent {
                    let other = prev.agent as usize;
                    if paths[other].get(t) == Some(&from) {
                        return Err(Violation::SwapConflict {
                            a: other.min(agent),
                            b: other.max(agent),
                            t: t - 1,
                            from: if other < agent { cell } else { from },
                            to: if other < agent { from } else { cell },
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

fn vertex(x: usize, y: usize, t: usize, cell: Cell) -> Violation {
    Violation::VertexConflict {
        a: x.min(y),
        b: x.max(y),
        t,
        cell,
    }
}
