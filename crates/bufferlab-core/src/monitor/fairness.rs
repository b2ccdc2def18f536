//! Fairness of a set of throughputs: Jain's index (Jain, Chiu & Hawe 1984,
//! J = (sum x)^2 / (n * sum x^2), 1 when all are equal, 1/n when one takes all) and the
//! population standard deviation (what Mansour and
//! Hmeed, "A Comparison of Queuing Algorithms Over TCP Protocol", seed 004, report).

#[derive(Debug, Clone, serde::Serialize)]
pub struct Fairness {
    pub flows: Vec<String>,
    pub jain: Option<f64>,
    pub throughput_mean_bps: Option<f64>,
    pub throughput_std_bps: Option<f64>,
}

pub fn jain(x: &[f64]) -> Option<f64> {
    let s: f64 = x.iter().sum();
    let s2: f64 = x.iter().map(|v| v * v).sum();
    (!x.is_empty() && s2 > 0.0).then(|| s * s / (x.len() as f64 * s2))
}

pub fn mean_std(x: &[f64]) -> Option<(f64, f64)> {
    if x.is_empty() {
        return None;
    }
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / n;
    Some((m, v.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the index's defining cases ----
    #[test]
    fn jain_bounds() {
        assert!((jain(&[3.0, 3.0, 3.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((jain(&[1.0, 0.0, 0.0, 0.0]).unwrap() - 0.25).abs() < 1e-12);
        assert!((jain(&[1.0, 2.0]).unwrap() - 0.9).abs() < 1e-12);
        assert_eq!(mean_std(&[1.0, 3.0]), Some((2.0, 1.0)));
    }
}
