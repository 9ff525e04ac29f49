//! Small multiples: one chart of several panels, each a [`Frame`] of the
//! same size sharing its axes with the others, laid out in rows that fit a
//! width. So a test's many cells are read panel by panel (one per file
//! size, one per phase) at the kit's own text size, never scaled down into
//! a page.

use super::axis::Frame;

/// The room around each panel's plot area: its axis labels and titles
/// (left, below), its own title (above), a gap (right).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Margins {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

/// Where `count` panels of one chart stand.
#[derive(Clone, Debug, PartialEq)]
pub struct Panels {
    count: usize,
    columns: usize,
    plot: (f64, f64),
    margins: Margins,
    /// Above the panels: the chart's title (and legend).
    head: f64,
}

impl Panels {
    /// `count` panels of plot areas `plot` (width, height) with `margins`,
    /// under a head of `head` px, as many to a row as fit `max_width`
    /// (one at least).
    pub fn new(
        count: usize,
        plot: (f64, f64),
        margins: Margins,
        head: f64,
        max_width: f64,
    ) -> Panels {
        let cell = margins.left + plot.0 + margins.right;
        let fit = (max_width / cell).floor().max(1.0) as usize;
        Panels {
            count,
            columns: fit.min(count.max(1)),
            plot,
            margins,
            head,
        }
    }

    /// The plot area of panel `i` (rows left to right, top to bottom).
    pub fn frame(&self, i: usize) -> Frame {
        let (row, column) = (i / self.columns, i % self.columns);
        let (cell_w, cell_h) = self.cell();
        let left = column as f64 * cell_w + self.margins.left;
        let top = self.head + row as f64 * cell_h + self.margins.top;
        Frame {
            left,
            top,
            right: left + self.plot.0,
            bottom: top + self.plot.1,
        }
    }

    /// Whether panel `i` starts its row (it carries the y axis's title).
    pub fn starts_row(&self, i: usize) -> bool {
        i.is_multiple_of(self.columns)
    }

    /// The chart's width: a full row's.
    pub fn width(&self) -> f64 {
        self.columns as f64 * self.cell().0
    }

    /// The chart's height down to the last row's bottom margin.
    pub fn height(&self) -> f64 {
        let rows = self.count.max(1).div_ceil(self.columns);
        self.head + rows as f64 * self.cell().1
    }

    fn cell(&self) -> (f64, f64) {
        let m = self.margins;
        (
            m.left + self.plot.0 + m.right,
            m.top + self.plot.1 + m.bottom,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Margins = Margins {
        left: 60.0,
        top: 20.0,
        right: 10.0,
        bottom: 40.0,
    };

    #[test]
    fn panels_fill_rows_that_fit_the_width() {
        // Cells of 70 + 300 = 370 px: three to 1200 px.
        let p = Panels::new(7, (300.0, 150.0), M, 30.0, 1200.0);
        assert_eq!(p.columns, 3);
        assert_eq!(p.width(), 1110.0);
        assert_eq!(p.height(), 30.0 + 3.0 * 210.0);
        assert_eq!(
            p.frame(0),
            Frame {
                left: 60.0,
                top: 50.0,
                right: 360.0,
                bottom: 200.0
            }
        );
        assert_eq!(p.frame(4).left, 60.0 + 370.0);
        assert_eq!(p.frame(4).top, 50.0 + 210.0);
        assert!(p.starts_row(3) && !p.starts_row(4));
        // Fewer panels than fit: the chart is as wide as they are.
        assert_eq!(
            Panels::new(2, (300.0, 150.0), M, 30.0, 1200.0).width(),
            740.0
        );
        // Wider than the page: one a row all the same.
        assert_eq!(Panels::new(2, (2000.0, 150.0), M, 0.0, 1200.0).columns, 1);
    }
}
