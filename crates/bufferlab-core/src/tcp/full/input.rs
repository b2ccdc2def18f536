//! FullTcp's receiving side, ns-2.35 `tcp/tcp-full.cc` `FullTcpAgent::recv`: the delayed-ACK
//! timer start, header prediction (`predict_ok`: an in-order pure ACK, or in-order data with
//! an empty reassembly queue), the LISTEN and SYN_SENT handshake steps, trimming of
//! duplicate data, the ACK path (duplicate ACKs counted against `tcprexmtthresh_`, `newack`,
//! partial and full ACKs, window growth) and the data path (in order: delayed ACK; out of
//! order: the reassembly queue, `reass`, and an immediate ACK), then FIN handling and output.

use super::{FullTcpAgent, State, TF_ACKNOW, TF_DELACK, TF_NEEDFIN};
use crate::endpoint::EndpointCtx;
use crate::packet::{tcp_flags as th, Packet, TcpHeader};

/// Where `recv`'s gotos lead.
enum Next {
    Step6,
    ProcessAck,
    Drop,
    DropAfterAck,
    DropWithReset,
}

impl FullTcpAgent {
    /// tcp-full.cc `predict_ok` (no timestamps or ECN here; p8: no SACK blocks).
    fn predict_ok(&self, seqno: i64, tiflags: u8, nsack: usize) -> bool {
        self.state == State::Established
            && tiflags & (th::SYN | th::FIN | th::ACK) == th::ACK
            && self.flags & TF_NEEDFIN == 0
            && seqno == self.rcv_nxt
            && self.t_seqno == self.maxseq
            && nsack == 0
    }

    /// tcp-full.cc `newack`: timers, `highest_ack_`, the RTT sample of the timed segment.
    fn newack(&mut self, ackno: i64) {
        let progress = ackno > self.highest_ack;
        if ackno == self.maxseq {
            self.rtx_at = None;
        } else if progress {
            self.set_rtx_timer();
        }
        if progress {
            self.highest_ack = ackno;
        }
        if self.t_seqno < self.highest_ack {
            self.t_seqno = self.highest_ack;
        }
        if self.rtt_active && ackno > self.rtt_seq {
            self.rtt_active = false;
            self.rtt.sample_at(self.rtt_ts, self.now);
        }
        // t_backoff_ = 1 (no ECN here)
        self.rtt.reset_backoff();
    }

    /// Data delivered in order to the application (`recvBytes`).
    fn deliver(&mut self, n: i64, cx: &mut EndpointCtx) {
        if n > 0 {
            self.delivered += n as u64;
            if cx.measuring() {
                cx.stats.goodput_bytes += n as u64;
            }
        }
    }

    /// tcp-full.cc `reass`: adds [start, end) to the ReassemblyQueue (`rq_.add`, which moves
    /// `rcv_nxt_` over a filled hole) and, when it filled the hole at `rcv_nxt_`, drops the
    /// blocks now in order (`cleartonxt`); returns their flags.
    fn reass(&mut self, start: i64, end: i64, tiflags: u8) -> u8 {
        let fillshole = start == self.rcv_nxt;
        let mut flags = self.rq.add(start, end, tiflags, &mut self.rcv_nxt);
        if !self.state.have_rcvd_syn() || !fillshole {
            return 0;
        }
        if self.state == State::SynReceived && end > start {
            return 0;
        }
        flags |= self.rq.clearto(self.rcv_nxt);
        flags
    }

    /// tcp-full.cc `recv`.
    pub(crate) fn recv(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        // size - hlen: the header carries the SACK option's bytes too (sendpacket)
        let mut datalen = pkt.payload as i64;
        let ackno = pkt.tcp.ack as u32 as i32 as i64;
        let mut seqno = pkt.tcp.seq as u32 as i32 as i64;
        let mut tiflags = pkt.tcp.flags;
        let mut needoutput = false;
        let mut dupseg = false;
        self.last_state = self.state;
        if self.state == State::Closed {
            if tiflags & th::FIN != 0 {
                return self.finish_recv(Next::DropAfterAck, ackno, seqno, datalen, tiflags, cx);
            }
            return;
        }
        self.arm_delack();
        if self.predict_ok(seqno, tiflags, pkt.tcp.sack_count()) {
            if datalen == 0 {
                if ackno > self.highest_ack
                    && ackno < self.maxseq
                    && self.cwnd >= self.wnd
                    && !self.fastrecov
                {
                    self.newack(ackno);
                    self.send_much(false, super::REASON_NORMAL, self.maxburst, cx);
                    return;
                }
            } else if ackno == self.highest_ack && self.rq.empty() {
                self.rcv_nxt += datalen;
                self.flags |= TF_DELACK;
                self.deliver(datalen, cx);
                if self.need_send() {
                    self.send_much(true, super::REASON_NORMAL, self.maxburst, cx);
                }
                return;
            }
        }
        let mut next: Option<Next> = None;
        match self.state {
            State::Listen => {
                if tiflags & th::ACK != 0 {
                    next = Some(Next::DropWithReset);
                } else if tiflags & th::SYN == 0 {
                    next = Some(Next::Drop);
                } else {
                    self.irs = seqno;
                    self.t_seqno = self.iss;
                    self.rcv_nxt = self.irs + datalen + 1; // rcvseqinit
                    self.flags |= TF_ACKNOW;
                    self.state = State::SynReceived;
                    seqno += 1; // trimthenstep6
                    next = Some(Next::Step6);
                }
            }
            State::SynSent => {
                if tiflags & th::ACK != 0 && (ackno <= self.iss || ackno > self.maxseq) {
                    next = Some(Next::DropWithReset);
                } else if tiflags & th::SYN == 0 {
                    next = Some(Next::Drop);
                } else {
                    self.irs = seqno;
                    self.rcv_nxt = self.irs + datalen + 1;
                    if tiflags & th::ACK != 0 {
                        self.highest_ack = ackno;
                        self.cwnd = self.initial_window();
                        if datalen > 0 {
                            self.flags |= TF_DELACK;
                        } else {
                            self.flags |= TF_ACKNOW;
                        }
                        if self.flags & TF_NEEDFIN != 0 {
                            self.state = State::FinWait1;
                            self.flags &= !TF_NEEDFIN;
                            tiflags &= !th::SYN;
                        } else {
                            self.state = State::Established;
                        }
                        let (t, r) = (self.t_seqno, self.rcv_nxt);
                        self.sendpacket(t, r, th::ACK, 0, 0, cx);
                    } else {
                        self.flags |= TF_ACKNOW;
                        self.rtx_at = None;
                        self.state = State::SynReceived;
                        self.t_seqno -= 1;
                    }
                    seqno += 1;
                    next = Some(if tiflags & th::ACK != 0 {
                        Next::ProcessAck
                    } else {
                        Next::Step6
                    });
                }
            }
            State::LastAck if tiflags & th::FIN != 0 => next = Some(Next::Drop),
            _ => {}
        }
        if next.is_none() {
            // trim data already received
            let mut todrop = self.rcv_nxt - seqno;
            if todrop > 0 && (tiflags & th::SYN != 0 || datalen > 0) {
                if tiflags & th::SYN != 0 {
                    tiflags &= !th::SYN;
                    seqno += 1;
                    todrop -= 1;
                }
                if todrop > datalen || (todrop == datalen && tiflags & th::FIN == 0) {
                    tiflags &= !th::FIN;
                    self.flags |= TF_ACKNOW;
                    todrop = datalen;
                    dupseg = true;
                }
                seqno += todrop;
                datalen -= todrop;
            }
            if tiflags & th::SYN != 0 {
                next = Some(Next::DropWithReset);
            } else if tiflags & th::ACK == 0 {
                next = Some(Next::Drop);
            }
        }
        let next = match next {
            Some(Next::ProcessAck) => {
                self.ack_path(true, &pkt.tcp, datalen, dupseg, &mut needoutput, cx)
            }
            Some(Next::Step6) => Next::Step6,
            Some(other) => other,
            None => self.ack_path(false, &pkt.tcp, datalen, dupseg, &mut needoutput, cx),
        };
        match next {
            Next::Step6 => self.step6(seqno, datalen, (tiflags, pkt.tcp.flags), needoutput, cx),
            other => self.finish_recv(other, ackno, seqno, datalen, tiflags, cx),
        }
    }

    /// recv's ACK processing (the `switch (state_)` after the trim, and `process_ACK`).
    fn ack_path(
        &mut self,
        straight_to_process: bool,
        hdr: &TcpHeader,
        datalen: i64,
        dupseg: bool,
        needoutput: &mut bool,
        cx: &mut EndpointCtx,
    ) -> Next {
        let ackno = hdr.ack as u32 as i32 as i64;
        if !straight_to_process {
            if self.state == State::SynReceived {
                if ackno < self.highest_ack || ackno > self.maxseq {
                    return Next::DropWithReset;
                }
                self.cwnd = self.initial_window();
                if self.flags & TF_NEEDFIN != 0 {
                    self.state = State::FinWait1;
                    self.flags &= !TF_NEEDFIN;
                } else {
                    self.state = State::Established;
                }
            }
            // in ESTABLISHED or later, the SACK blocks into the scoreboard
            if self.state >= State::Established && hdr.sack_count() > 0 {
                self.process_sack(hdr, hdr.flags & th::FIN != 0);
            }
            if self.fastrecov && (datalen == 0 || ackno > self.highest_ack) {
                self.pipe -= self.maxseg();
            }
            if ackno <= self.highest_ack {
                if datalen == 0 && !dupseg {
                    if self.rtx_at.is_none() || ackno < self.highest_ack {
                        self.dupacks = 0; // oldack
                    } else {
                        self.dupacks += 1;
                        if self.dupacks == self.f.tcprexmtthresh {
                            self.dupack_action(cx);
                            return Next::Drop;
                        } else if self.dupacks > self.f.tcprexmtthresh {
                            self.extra_ack();
                            self.send_much(false, super::REASON_DUPACK, self.maxburst, cx);
                            return Next::Drop;
                        }
                    }
                }
                // dupack_reset_ false: nothing for a data segment
                return Next::Step6;
            }
        }
        // process_ACK
        if ackno > self.maxseq {
            return Next::DropAfterAck;
        }
        self.newack(ackno);
        let partial = self.is_partial(ackno);
        if partial {
            self.pack_action(cx);
        } else {
            self.ack_action();
        }
        if ackno == self.maxseq {
            *needoutput = true;
        }
        if ackno == self.highest_ack + 1 {
            return Next::Step6;
        }
        if (!self.p.ns2.delay_growth || self.rcv_nxt > 0)
            && self.last_state == State::Established
            && (!partial || self.f.open_cwnd_on_pack)
        {
            self.opencwnd();
        }
        let ourfinisacked = self.state >= State::FinWait1 && ackno == self.maxseq;
        match self.state {
            State::FinWait1 if ourfinisacked => {
                self.state = State::FinWait2;
                self.rtx_at = None;
                self.delack_at = None;
                *needoutput = false;
            }
            State::Closing if ourfinisacked => {
                self.state = State::Closed;
                self.rtx_at = None;
                self.delack_at = None;
            }
            State::LastAck if ourfinisacked => {
                self.state = State::Closed;
                self.reset();
                return Next::Drop;
            }
            _ => {}
        }
        Next::Step6
    }

    /// recv's `step6`: the data, then FIN, then output.
    fn step6(
        &mut self,
        seqno: i64,
        datalen: i64,
        (tiflags, orig_flags): (u8, u8),
        mut needoutput: bool,
        cx: &mut EndpointCtx,
    ) {
        let mut tiflags = tiflags;
        if (datalen > 0 || tiflags & th::FIN != 0) && !self.state.have_rcvd_fin() {
            if seqno == self.rcv_nxt && self.rq.empty() {
                self.flags |= TF_DELACK;
                self.rcv_nxt += datalen;
                tiflags = orig_flags & th::FIN;
                self.deliver(datalen, cx);
                needoutput = self.need_send();
            } else {
                let old = self.rcv_nxt;
                tiflags = self.reass(seqno, seqno + datalen, tiflags);
                if self.rcv_nxt > old {
                    self.deliver(self.rcv_nxt - old, cx);
                }
                self.flags |= TF_ACKNOW;
                if tiflags & th::PSH != 0 {
                    needoutput = self.need_send();
                }
            }
        } else {
            tiflags &= !th::FIN;
        }
        if tiflags & th::FIN != 0 {
            if !self.state.have_rcvd_fin() {
                self.flags |= TF_ACKNOW;
                self.rcv_nxt += 1;
            }
            match self.state {
                State::SynReceived | State::Established => self.state = State::CloseWait,
                State::FinWait1 => self.state = State::Closing,
                State::FinWait2 => {
                    self.state = State::Closed;
                    self.rtx_at = None;
                    self.delack_at = None;
                }
                _ => {}
            }
        }
        if needoutput || self.flags & TF_ACKNOW != 0 {
            self.send_much(true, super::REASON_NORMAL, self.maxburst, cx);
        } else if self.curseq >= self.highest_ack || self.infinite_send {
            self.send_much(false, super::REASON_NORMAL, self.maxburst, cx);
        }
        // halfclose_ false: a passive closer closes when all is ACKed (usrclosed)
        if self.state == State::CloseWait && self.highest_ack == self.maxseq {
            // usrclosed() in CLOSE_WAIT
            self.curseq = self.maxseq - 1;
            self.infinite_send = false;
            self.state = State::LastAck;
            self.flags |= TF_NEEDFIN;
            self.send_much(true, super::REASON_NORMAL, self.maxburst, cx);
        }
    }

    /// recv's `dropafterack`, `dropwithreset` and `drop` exits.
    fn finish_recv(
        &mut self,
        how: Next,
        ackno: i64,
        seqno: i64,
        datalen: i64,
        tiflags: u8,
        cx: &mut EndpointCtx,
    ) {
        match how {
            Next::DropAfterAck => {
                self.flags |= TF_ACKNOW;
                self.send_much(true, super::REASON_NORMAL, self.maxburst, cx);
            }
            Next::DropWithReset => {
                // ns-2 cannot send an RST: it sends this instead
                if tiflags & th::ACK != 0 {
                    self.sendpacket(ackno, 0, 0, 0, super::REASON_NORMAL, cx);
                } else {
                    let mut ack = seqno + datalen;
                    if tiflags & th::SYN != 0 {
                        ack -= 1;
                    }
                    self.sendpacket(0, ack, th::ACK, 0, super::REASON_NORMAL, cx);
                }
            }
            _ => {}
        }
    }
}
