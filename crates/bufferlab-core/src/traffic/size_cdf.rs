//! Flow sizes drawn from an empirical CDF: the datacenter workloads of the literature, built
//! in, or a user's file.
//!
//! A CDF is a list of points (size in bytes, cumulative probability) from probability 0 to 1;
//! between two points the CDF is linear, so a size is drawn by inverting it at a uniform
//! number (linear interpolation, as the HPCC simulator's `traffic_gen/custom_rand.py`
//! `getValueFromPercentile` and the DCTCP authors' traffic generator
//! (github.com/datacenter/empirical-traffic-gen, `src/client/ranvar.cc`
//! `EmpiricalRandomVariable::value` with interpolation) draw theirs), rounded to whole bytes
//! and at least 1 byte (HPCC's traffic_gen.py makes a size of 0 one byte). The mean is that of
//! the piecewise-linear CDF: the sum over segments of the segment's mid size times its
//! probability (custom_rand.py `getAvg`, ranvar.cc `avg`).
//!
//! The built-in CDFs, each point as published in those public simulation inputs (which
//! reproduce the papers' figures):
//!
//! * `web_search`: Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Fig. 3 (the
//!   background flows of a web-search cluster). Points: `DCTCP_CDF` of
//!   datacenter/empirical-traffic-gen, identical to `traffic_gen/WebSearch_distribution.txt`
//!   of alibaba-edu/High-Precision-Congestion-Control (HPCC, SIGCOMM 2019); pFabric (SIGCOMM
//!   2013) uses the same distribution. Mean 1 711 250 bytes.
//! * `data_mining`: Greenberg et al., "VL2", SIGCOMM 2009, Fig. 2 (flow sizes of a data-mining
//!   cluster). Points: `VL2_CDF.txt` of datacenter/empirical-traffic-gen, the largest flow
//!   1 GB. Mean 12 658 198.6 bytes.
//! * `hadoop`: Roy et al., "Inside the Social Network's (Datacenter) Network", SIGCOMM 2015,
//!   Fig. 6 (Facebook's Hadoop cluster). Points: `traffic_gen/FbHdp_distribution.txt` of the
//!   HPCC repository, the distribution HPCC's evaluation uses. Mean 120 420.75 bytes.
//!
//! A user's file has one point per line, `size probability`, the size in bytes and the
//! probability either in [0, 1] or in percent (the HPCC files' 0-100, recognised by a last
//! point of 100); `#` starts a comment; a third column is allowed and ignored when there are
//! three (empirical-traffic-gen's files: `size count cdf`, the cdf last). Sizes and
//! probabilities must increase (sizes strictly; probabilities never decrease), the first
//! probability be 0 and the last 1; each error names its line.

use crate::rng::Rng;
use rand::RngExt;

/// A piecewise-linear CDF of flow sizes.
#[derive(Debug, Clone, PartialEq)]
pub struct SizeCdf {
    /// (bytes, cumulative probability), sizes increasing, probabilities from 0 to 1.
    points: Vec<(f64, f64)>,
}

/// DCTCP Fig. 3 web search (module doc).
const WEB_SEARCH: [(f64, f64); 12] = [
    (0.0, 0.0),
    (10_000.0, 0.15),
    (20_000.0, 0.20),
    (30_000.0, 0.30),
    (50_000.0, 0.40),
    (80_000.0, 0.53),
    (200_000.0, 0.60),
    (1_000_000.0, 0.70),
    (2_000_000.0, 0.80),
    (5_000_000.0, 0.90),
    (10_000_000.0, 0.97),
    (30_000_000.0, 1.0),
];

/// VL2 Fig. 2 data mining (module doc).
const DATA_MINING: [(f64, f64); 13] = [
    (0.0, 0.0),
    (180.0, 0.1),
    (216.0, 0.2),
    (560.0, 0.3),
    (900.0, 0.4),
    (1_100.0, 0.5),
    (1_870.0, 0.6),
    (3_160.0, 0.7),
    (10_000.0, 0.8),
    (400_000.0, 0.9),
    (3_160_000.0, 0.95),
    (100_000_000.0, 0.98),
    (1_000_000_000.0, 1.0),
];

/// Roy et al. Fig. 6 Hadoop (module doc).
const HADOOP: [(f64, f64); 20] = [
    (0.0, 0.0),
    (100.0, 0.01),
    (200.0, 0.02),
    (300.0, 0.05),
    (350.0, 0.15),
    (400.0, 0.20),
    (500.0, 0.30),
    (600.0, 0.40),
    (700.0, 0.50),
    (1_000.0, 0.60),
    (2_000.0, 0.67),
    (7_000.0, 0.70),
    (30_000.0, 0.72),
    (50_000.0, 0.82),
    (80_000.0, 0.87),
    (120_000.0, 0.90),
    (300_000.0, 0.95),
    (1_000_000.0, 0.975),
    (2_000_000.0, 0.99),
    (10_000_000.0, 1.0),
];

/// The names of the built-in CDFs.
pub const BUILT_IN: [&str; 3] = ["web_search", "data_mining", "hadoop"];

impl SizeCdf {
    /// A built-in CDF by name (`BUILT_IN`).
    pub fn built_in(name: &str) -> Option<SizeCdf> {
        let pts: &[(f64, f64)] = match name {
            "web_search" => &WEB_SEARCH,
            "data_mining" => &DATA_MINING,
            "hadoop" => &HADOOP,
            _ => return None,
        };
        Some(SizeCdf {
            points: pts.to_vec(),
        })
    }

    /// A CDF from checked points (see the module doc), or what is wrong with them: the message
    /// names the point by its 1-based position.
    pub fn new(points: Vec<(f64, f64)>) -> Result<SizeCdf, (usize, String)> {
        if points.len() < 2 {
            return Err((points.len(), "a CDF needs at least two points".into()));
        }
        for (i, &(x, p)) in points.iter().enumerate() {
            if !(x.is_finite() && x >= 0.0) {
                return Err((i + 1, format!("size {x} is not a number of bytes >= 0")));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err((i + 1, format!("probability {p} is outside [0, 1]")));
            }
            if i > 0 {
                let (x0, p0) = points[i - 1];
                if x <= x0 {
                    return Err((i + 1, format!("size {x} does not increase (after {x0})")));
                }
                if p < p0 {
                    return Err((i + 1, format!("probability {p} decreases (after {p0})")));
                }
            }
        }
        if points[0].1 != 0.0 {
            return Err((1, "the first probability must be 0".into()));
        }
        if points[points.len() - 1].1 != 1.0 {
            return Err((
                points.len(),
                "the last probability must be 1 (or 100 %)".into(),
            ));
        }
        Ok(SizeCdf { points })
    }

    /// A CDF from a file's text (module doc); errors name the line.
    pub fn parse(text: &str) -> Result<SizeCdf, String> {
        let mut pts = Vec::new();
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let cols: Vec<&str> = line.split_whitespace().collect();
            let (x, p) = match cols.as_slice() {
                [x, p] | [x, _, p] => (*x, *p),
                _ => {
                    return Err(format!(
                    "line {}: expected `size probability` (or `size count probability`), got {:?}",
                    n + 1,
                    line
                ))
                }
            };
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|_| format!("line {}: {s:?} is not a number", n + 1))
            };
            pts.push((num(x)?, num(p)?));
            lines.push(n + 1);
        }
        // percent (HPCC's files end at 100) or probabilities
        if pts.last().is_some_and(|&(_, p)| p > 1.0) {
            for pt in &mut pts {
                pt.1 /= 100.0;
            }
        }
        SizeCdf::new(pts).map_err(|(i, msg)| {
            let line = lines.get(i.saturating_sub(1)).copied().unwrap_or(0);
            if lines.is_empty() {
                "the file has no points".into()
            } else {
                format!("line {line}: {msg}")
            }
        })
    }

    /// The mean size in bytes of the piecewise-linear CDF.
    pub fn mean(&self) -> f64 {
        self.points
            .windows(2)
            .map(|w| (w[0].0 + w[1].0) / 2.0 * (w[1].1 - w[0].1))
            .sum()
    }

    /// The size at cumulative probability `u` in [0, 1] (the CDF inverted, linear between
    /// points; a jump at a size with no probability between takes the first such size).
    pub fn quantile(&self, u: f64) -> f64 {
        let pts = &self.points;
        for w in pts.windows(2) {
            let ((x0, p0), (x1, p1)) = (w[0], w[1]);
            if u <= p1 && p1 > p0 {
                return x0 + (x1 - x0) * (u - p0) / (p1 - p0);
            }
        }
        pts[pts.len() - 1].0
    }

    /// A size in whole bytes, at least 1.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let u: f64 = rng.random();
        (self.quantile(u).round() as u64).max(1)
    }

    /// The largest size.
    pub fn max(&self) -> f64 {
        self.points[self.points.len() - 1].0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_means_are_the_trapezoid_sums() {
        let m = |n: &str| SizeCdf::built_in(n).unwrap().mean();
        assert!(
            (m("web_search") - 1_711_250.0).abs() < 1e-6,
            "{}",
            m("web_search")
        );
        assert!(
            (m("data_mining") - 12_658_198.6).abs() < 1e-6,
            "{}",
            m("data_mining")
        );
        assert!((m("hadoop") - 120_420.75).abs() < 1e-6, "{}", m("hadoop"));
    }

    #[test]
    fn sampled_sizes_average_to_the_mean() {
        // web search: sd 3.97 MB (mean 1.71 MB), so 400 000 draws give a standard error of
        // 0.37 %: the bound is four of them
        let cdf = SizeCdf::built_in("web_search").unwrap();
        let mut rng = crate::rng::stream(7, "cdf-test");
        let n = 400_000;
        let sum: f64 = (0..n).map(|_| cdf.sample(&mut rng) as f64).sum();
        let mean = sum / n as f64;
        assert!(
            (mean / cdf.mean() - 1.0).abs() < 0.015,
            "{mean} {}",
            cdf.mean()
        );
        // and the same seed draws the same sizes
        let mut a = crate::rng::stream(7, "x");
        let mut b = crate::rng::stream(7, "x");
        for _ in 0..100 {
            assert_eq!(cdf.sample(&mut a), cdf.sample(&mut b));
        }
    }

    #[test]
    fn quantiles_interpolate_between_points() {
        let cdf = SizeCdf::built_in("web_search").unwrap();
        assert_eq!(cdf.quantile(0.15), 10_000.0);
        assert!((cdf.quantile(0.175) - 15_000.0).abs() < 1e-6);
        assert_eq!(cdf.quantile(1.0), 30_000_000.0);
        assert_eq!(cdf.quantile(0.0), 0.0);
    }

    #[test]
    fn files_parse_in_percent_or_probability_and_errors_name_the_line() {
        let a = SizeCdf::parse("# sizes\n0 0\n100 50\n\n300 100\n").unwrap();
        let b = SizeCdf::parse("0 1 0\n100 2 0.5\n300 3 1\n").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.mean(), 0.5 * 50.0 + 0.5 * 200.0);
        let e = SizeCdf::parse("0 0\n100 0.5\n90 1\n").unwrap_err();
        assert!(e.starts_with("line 3:") && e.contains("increase"), "{e}");
        let e = SizeCdf::parse("0 0\n\n100 x\n").unwrap_err();
        assert!(e.starts_with("line 3:"), "{e}");
        let e = SizeCdf::parse("0 0.1\n100 1\n").unwrap_err();
        assert!(e.starts_with("line 1:") && e.contains("first"), "{e}");
        let e = SizeCdf::parse("0 0\n100 0.9\n").unwrap_err();
        assert!(e.starts_with("line 2:") && e.contains("last"), "{e}");
        assert!(SizeCdf::parse("# nothing\n").is_err());
    }
}
