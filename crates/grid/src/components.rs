//! Connected components of the free cells.

use crate::{Cell, Grid};

/// Identifier of a connected component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ComponentId(pub u32);

const BLOCKED: u32 = u32::MAX;

/// A component label per cell (4-connected, which equals 8-connected without corner cutting).
#[derive(Debug, Clone)]
pub struct Components {
    labels: Vec<u32>,
    sizes: Vec<u32>,
}

impl Components {
    /// Labels every free cell of `grid` by flood fill, in row-major order of first cells.
    pub fn label(grid: &Grid) -> Components {
        let w = grid.width() as usize;
        let h = grid.height() as usize;
        let mut labels = vec![BLOCKED; w * h];
        let mut sizes = Vec::new();
        let mut stack = Vec::new();
        for start in 0..w * h {
            if labels[start] != BLOCKED || !grid.is_free(cell_at(start, w)) {
                continue;
            }
            let id = sizes.len() as u32;
            let mut size = 0u32;
            labels[start] = id;
            stack.push(start);
            while let Some(i) = stack.pop() {
                size += 1;
                for n in grid.neighbours4(cell_at(i, w)) {
                    let j = n.y as usize * w + n.x as usize;
                    if labels[j] == BLOCKED {
                        labels[j] = id;
                        stack.push(j);
                    }
                }
            }
            sizes.push(size);
        }
        Components { labels, sizes }
    }

    /// The component of `cell`, or `None` when it is blocked or outside the grid.
    #[inline]
    pub fn of(&self, grid: &Grid, cell: Cell) -> Option<ComponentId> {
        if !grid.contains(cell) {
            return None;
        }
        match self.labels[grid.index(cell).get()] {
            BLOCKED => None,
            l => Some(ComponentId(l)),
        }
    }

    /// Number of components.
    pub fn count(&self) -> usize {
        self.sizes.len()
    }

    /// Number of cells in a component.
    pub fn size(&self, id: ComponentId) -> u32 {
        self.sizes[id.0 as usize]
    }

    /// The largest component, if any cell is free.
    pub fn largest(&self) -> Option<ComponentId> {
        (0..self.sizes.len())
            .max_by_key(|&i| self.sizes[i])
            .map(|i| ComponentId(i as u32))
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.labels.len() * 4 + self.sizes.len() * 4
    }
}

fn cell_at(i: usize, w: usize) -> Cell {
    Cell::new((i % w) as u32, (i / w) as u32)
}
