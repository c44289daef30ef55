//! The one report writer every experiment shares: text tables, CSV and SVG line charts.
//!
//! Owns: [`Table`], [`csv`], [`chart`] (a stack of [`Panel`]s of [`Series`], drawn with
//! plotters) and the charts' colors. Does not touch: what an experiment measures; each
//! experiment only says which columns and series it reports.

use plotters::prelude::*;
use std::fmt::Write as _;
use std::ops::Range;

/// A text table: a header row and rows of cells, each column right-aligned to its width (the
/// first one left-aligned when `label_width` is set, for row names).
pub struct Table {
    widths: Vec<usize>,
    label_width: Option<usize>,
    text: String,
}

impl Table {
    /// A table whose columns have the given names and widths.
    pub fn new(columns: &[(&str, usize)]) -> Table {
        let mut t = Table {
            widths: columns.iter().map(|c| c.1).collect(),
            label_width: None,
            text: String::new(),
        };
        t.row(columns.iter().map(|c| c.0.to_string()));
        t
    }

    /// A table with a left-aligned first column of row names `label_width` wide.
    pub fn with_labels(label_width: usize, columns: &[(&str, usize)]) -> Table {
        let mut t = Table {
            widths: columns.iter().map(|c| c.1).collect(),
            label_width: Some(label_width),
            text: String::new(),
        };
        t.row(std::iter::once(String::new()).chain(columns.iter().map(|c| c.0.to_string())));
        t
    }

    /// A row of cells (the row name first, for a table with labels).
    pub fn row(&mut self, cells: impl IntoIterator<Item = String>) -> &mut Self {
        let mut cells = cells.into_iter();
        let mut line = String::new();
        if let Some(w) = self.label_width {
            let _ = write!(line, "{:<w$}", cells.next().unwrap_or_default());
        }
        for (k, (cell, w)) in cells.zip(&self.widths).enumerate() {
            let sep = if k > 0 || self.label_width.is_some() {
                " "
            } else {
                ""
            };
            let _ = write!(line, "{sep}{cell:>w$}");
        }
        self.text.push_str(&line);
        self.text.push('\n');
        self
    }

    /// A line of free text under the rows.
    pub fn note(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self.text.push('\n');
        self
    }

    pub fn text(&self) -> &str {
        &self.text
    }
}

/// CSV text: the header, then one line per row of already formatted cells.
pub fn csv<R: IntoIterator<Item = String>>(
    header: &[&str],
    rows: impl IntoIterator<Item = R>,
) -> String {
    let mut s = header.join(",");
    s.push('\n');
    for row in rows {
        let cells: Vec<String> = row.into_iter().collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

/// The charts' colors, in order: five that stay apart on white, then plotters' palette.
pub fn color(k: usize) -> RGBAColor {
    const FIXED: [RGBColor; 5] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
    ];
    FIXED
        .get(k)
        .map_or_else(|| Palette99::pick(k).to_rgba(), |c| c.to_rgba())
}

/// Black, for reference data.
pub const BLACK_RGBA: RGBAColor = RGBAColor(0, 0, 0, 1.0);

/// One line or set of points on a panel.
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub color: RGBAColor,
    /// Line width in pixels; 0 draws no line.
    pub line: u32,
    /// Dot radius in pixels; 0 draws no dots.
    pub dots: u32,
}

impl Series {
    /// A line of width 2.
    pub fn line(label: impl Into<String>, points: Vec<(f64, f64)>, color: RGBAColor) -> Series {
        Series {
            label: label.into(),
            points,
            color,
            line: 2,
            dots: 0,
        }
    }

    /// Dots of radius `r`, no line.
    pub fn dots(
        label: impl Into<String>,
        points: Vec<(f64, f64)>,
        color: RGBAColor,
        r: u32,
    ) -> Series {
        Series {
            label: label.into(),
            points,
            color,
            line: 0,
            dots: r,
        }
    }
}

/// One chart panel: a title, axes and series.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x: Range<f64>,
    pub y: Range<f64>,
    /// A logarithmic x axis.
    pub log_x: bool,
    /// Label x values in thousands ("12k").
    pub x_in_thousands: bool,
    /// The legend in the upper left corner (default: upper right).
    pub legend_upper_left: bool,
    pub series: Vec<Series>,
}

impl Panel {
    pub fn new(title: impl Into<String>, x_label: &str, y_label: &str) -> Panel {
        Panel {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x: 0.0..1.0,
            y: 0.0..1.0,
            log_x: false,
            x_in_thousands: false,
            legend_upper_left: false,
            series: Vec::new(),
        }
    }

    /// Axis ranges that hold every series' points, the y range padded by `pad` of its span
    /// (at least 0..ε, so a flat or empty panel still draws).
    pub fn fit(mut self, pad: f64) -> Panel {
        let pts = || self.series.iter().flat_map(|s| s.points.iter().copied());
        let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let (y0, y1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
        if x0 <= x1 {
            self.x = if self.log_x {
                // At least a factor of four, so the log axis has labelled ticks.
                let w = (4.0 * x0 / x1).sqrt().max(1.25);
                (x0 / w).max(1.0)..x1 * w
            } else if x1 > x0 {
                x0..x1
            } else {
                x0..x0 + 1.0
            };
            let span = (y1 - y0).max(y1.abs()).max(1e-9);
            self.y = (y0 - pad * span).min(0.0)..y1 + pad * span;
        }
        self
    }
}

/// A chart of `panels` stacked top to bottom, `width` pixels wide and `height` per panel, as
/// SVG text.
pub fn chart(panels: &[Panel], width: u32, height: u32) -> Result<String, String> {
    let mut buf = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let total = (width, height * panels.len().max(1) as u32);
        let root = SVGBackend::with_string(&mut buf, total).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (panel, area) in panels.iter().zip(&areas) {
            draw_panel(panel, area).map_err(|e| err(&e))?;
        }
        root.present().map_err(|e| err(&e))?;
    }
    Ok(buf)
}

type Area<'a, 'b> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult<'a> =
    Result<(), DrawingAreaErrorKind<<SVGBackend<'a> as DrawingBackend>::ErrorType>>;

fn draw_panel<'a>(p: &Panel, area: &Area<'a, '_>) -> DrawResult<'a> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&p.title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(70);
    if p.log_x {
        let mut c = builder.build_cartesian_2d(p.x.clone().log_scale(), p.y.clone())?;
        let thousands = |x: &f64| format!("{:.0}k", x / 1e3);
        let mut mesh = c.configure_mesh();
        mesh.x_desc(&p.x_label).y_desc(&p.y_label);
        if p.x_in_thousands {
            mesh.x_label_formatter(&thousands);
        }
        mesh.draw()?;
        draw_series(p, &mut c)
    } else {
        let mut c = builder.build_cartesian_2d(p.x.clone(), p.y.clone())?;
        c.configure_mesh()
            .x_desc(&p.x_label)
            .y_desc(&p.y_label)
            .draw()?;
        draw_series(p, &mut c)
    }
}

fn draw_series<'a, 'c, X>(
    p: &Panel,
    c: &mut ChartContext<
        'c,
        SVGBackend<'a>,
        Cartesian2d<X, plotters::coord::types::RangedCoordf64>,
    >,
) -> DrawResult<'a>
where
    X: Ranged<ValueType = f64>,
    'a: 'c,
{
    for s in &p.series {
        let color = s.color;
        let (line, dots) = (s.line, s.dots);
        let anno = if line > 0 {
            if dots > 0 {
                c.draw_series(
                    s.points
                        .iter()
                        .map(|&q| Circle::new(q, dots, color.filled())),
                )?;
            }
            c.draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(line),
            ))?
        } else {
            c.draw_series(
                s.points
                    .iter()
                    .map(|&q| Circle::new(q, dots, color.filled())),
            )?
        };
        anno.label(s.label.clone()).legend(move |(x, y)| {
            if line > 0 {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(line)).into_dyn()
            } else {
                Circle::new((x + 10, y), dots, color.filled()).into_dyn()
            }
        });
    }
    let mut labels = c.configure_series_labels();
    if p.legend_upper_left {
        labels.position(SeriesLabelPosition::UpperLeft);
    }
    labels
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
}
