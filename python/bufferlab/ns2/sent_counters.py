"""The trace lines of a TCP sender's packet counters, `$tcp trace t_seqno_` / `maxseq_` (and
the `ack_` they follow), written assignment by assignment as ns-2.35's TcpAgent writes them
(tcp.cc):

* `send_much` sends packet `t_seqno_` and then increments it, and `output` first raises
  `maxseq_` to a new packet's number: each packet sent writes `maxseq_ N` (a new one) and
  `t_seqno_ N+1`;
* `newack` sets `highest_ack_` (ack_), and then `t_seqno_ = last_ack_ + 1` when the ACK
  covers packets beyond `t_seqno_` (after a timeout went back), before the RTT and window
  updates;
* `timeout` sets `t_seqno_ = highest_ack_ + 1` after `ssthresh_` and `cwnd_`, and sends.

The engine reports a variable's value after each of its events; the packets sent within one
event are reconstructed from the values before and after it by these rules (the engine's
watches of the three variables write nothing themselves; `Runner.flush_var_traces` hands their
changes here in ns-2's order, session.rs `change_rank`)."""

from __future__ import annotations

from collections.abc import Callable

from bufferlab.ns2.model import Agent

SENT_COUNTERS = ("maxseq_", "t_seqno_")
_FOLLOWED = ("ack_", *SENT_COUNTERS)


class SentCounters:
    """One sender's counters: their last values and which of them the script traces."""

    def __init__(
        self,
        ag: Agent,
        write: Callable[[float, str, float], None],
        probe: Callable[[str, str], float | None],
    ) -> None:
        assert ag.flow is not None
        self.write = write
        self.traced: set[str] = set()
        self.hidden: dict[int, str] = {}  # the engine's watches that feed this, by number
        self.last = {v: probe(ag.flow, v) or 0.0 for v in _FOLLOWED}
        self.pending: tuple[float, float] | None = None  # (time, maxseq_) before t_seqno_

    def follow(self, watch: int, var: str, *, written: bool) -> None:
        if written:
            self.traced.add(var)
        else:
            self.hidden[watch] = var

    def owns(self, var: str) -> bool:
        """Whether this writes the lines of the script's trace of `var`."""
        return var in _FOLLOWED

    def change(self, t: float, watch: int, value: float) -> None:
        var = self.hidden.get(watch)
        if var is None:
            return  # the script's own watch of a followed variable: written from the hidden one
        if var == "ack_":
            self.settle()
            self.last["ack_"] = value
            if "ack_" in self.traced:
                self.write(t, "ack_", value)
            if self.last["t_seqno_"] < value + 1:  # newack: t_seqno_ = last_ack_ + 1
                self._set(t, "t_seqno_", value + 1)
        elif var == "maxseq_":
            self.settle()
            self.pending = (t, value)
        else:
            top = self.pending[1] if self.pending is not None else self.last["maxseq_"]
            self.pending = None
            self._sends(t, value, top)

    def settle(self) -> None:
        """A `maxseq_` change with no `t_seqno_` change at its instant."""
        if self.pending is not None:
            t, top = self.pending
            self.pending = None
            self._sends(t, self.last["t_seqno_"], top)

    def _sends(self, t: float, end_seq: float, end_top: float) -> None:
        seq, top = self.last["t_seqno_"], self.last["maxseq_"]
        if end_seq < seq:  # timeout: t_seqno_ = highest_ack_ + 1, then the sends
            seq = self.last["ack_"] + 1
            self._set(t, "t_seqno_", seq)
        while seq < end_seq:
            if seq > top:
                top = seq
                self._set(t, "maxseq_", top)
            seq += 1
            self._set(t, "t_seqno_", seq)
        if top < end_top:
            self._set(t, "maxseq_", end_top)

    def _set(self, t: float, var: str, value: float) -> None:
        if self.last[var] != value:
            self.last[var] = value
            if var in self.traced:
                self.write(t, var, value)
