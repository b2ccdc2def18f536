"""Congestion control written in Python, named from a scenario's flow as
``tcp = { cc = "python", cc_class = "python_cc.py:Reno" }``, and run with
``bufferlab run --allow-python`` (importing a class runs its code).

Reno is the built-in Reno (crates/bufferlab-core/src/tcp/cc/reno.rs, RFC 5681) rewritten in
Python: tests/test_extend.py checks it gives exactly the built-in results for the same seed.
"""

from bufferlab import CongestionControl


class Reno(CongestionControl):
    """RFC 5681: slow start adds min(acked, MSS) per ACK (section 3.1, byte counting with
    L = 1 SMSS), congestion avoidance MSS*MSS/cwnd per ACK (equation 3), ssthresh =
    max(FlightSize/2, 2 MSS) on loss (equation 4), Reno fast recovery (section 3.2)."""

    recovery = "reno"

    def on_ack(self, w, ack):
        if w.cwnd < w.ssthresh:
            w.cwnd += min(float(ack.bytes_acked), w.mss)
        else:
            w.cwnd += w.mss * w.mss / w.cwnd

    def ssthresh_on_loss(self, w, flight, now):
        return max(flight / 2.0, 2.0 * w.mss)
