//! FullTcp's sending side (ns-2.35 `tcp/tcp-full.cc`): `foutput` (decide whether one segment
//! goes out and with what), `send_much` (as many as the window allows), `sendpacket` (fill
//! the header and count), `send_allowed`, `need_send` (the receiver's ACK frequency,
//! `segsperack_`), and the outgoing flags of each state (`outflags`).

use super::{
    FullTcpAgent, State, REASON_DUPACK, REASON_TIMEOUT, TF_ACKNOW, TF_DELACK, TF_NEEDCLOSE,
};
use crate::endpoint::EndpointCtx;
use crate::packet::{tcp_flags as th, Packet, PacketKind, TcpHeader};

/// tcp-full.cc `foutput`'s "infinite" buffer (`TCP_MAXSEQ`).
const TCP_MAXSEQ: i64 = 1_073_741_824;

impl FullTcpAgent {
    /// tcp-full.cc `outflags`: the flags each state puts on its next segment.
    pub(crate) fn outflags(&self) -> u8 {
        match self.state {
            State::Closed => th::ACK,
            State::Listen => 0,
            State::SynSent => th::SYN,
            State::SynReceived => th::SYN | th::ACK,
            State::Established | State::CloseWait | State::FinWait2 => th::ACK,
            State::FinWait1 | State::Closing | State::LastAck => th::FIN | th::ACK,
        }
    }

    /// tcp-full.cc `need_send`: an ACK is owed (TF_ACKNOW), or `segsperack_` full segments
    /// arrived since the last ACK sent (`spa_thresh_` 0: no threshold).
    pub(crate) fn need_send(&self) -> bool {
        if self.flags & TF_ACKNOW != 0 {
            return true;
        }
        self.rcv_nxt - self.last_ack_sent >= self.f.segsperack as i64 * self.maxseg()
    }

    /// tcp-full.cc `send_allowed`: `seq` lies below the top of the window (or of the
    /// application's data, `curseq_`).
    pub(crate) fn send_allowed(&self, seq: i64) -> bool {
        if self.pipectrl {
            return self.sack_send_allowed(seq);
        }
        let win = self.window() * self.maxseg();
        let mut topwin = self.curseq;
        if topwin > self.highest_ack + win || self.infinite_send {
            topwin = self.highest_ack + win;
        }
        seq < topwin
    }

    /// tcp-full.cc `send_much`: output segments while the window allows (`force`: the first
    /// even if not), at most `maxburst` (0: no limit), stopping after a SYN or FIN.
    pub(crate) fn send_much(
        &mut self,
        force: bool,
        reason: u8,
        maxburst: u32,
        cx: &mut EndpointCtx,
    ) {
        let mut force = force;
        let mut npackets = 0u32;
        loop {
            let seq = if self.is_sack() {
                self.sack_nxt_tseq()
            } else {
                self.t_seqno // FullTcpAgent::nxt_tseq
            };
            if !force && !self.send_allowed(seq) {
                break;
            }
            let mut amt = self.foutput(seq, reason, cx);
            if amt <= 0 {
                break;
            }
            if self.outflags() & th::FIN != 0 {
                amt -= 1; // don't count FINs
            }
            self.sent(seq, amt);
            force = false;
            if self.outflags() & (th::SYN | th::FIN) != 0 {
                break;
            }
            npackets += 1;
            if maxburst != 0 && npackets >= maxburst {
                break;
            }
        }
    }

    /// tcp-full.cc `foutput`: sends the segment at `seqno` if there is a reason to (data the
    /// window allows and Nagle lets go, an ACK owed, a SYN or FIN); returns the sequence
    /// numbers it reliably sent (data, SYN and FIN count one each).
    pub(crate) fn foutput(&mut self, seqno: i64, reason: u8, cx: &mut EndpointCtx) -> i64 {
        let maxseg = self.maxseg();
        let is_retransmit = seqno < self.maxseq;
        let quiet = self.highest_ack == self.maxseq;
        let mut pflags = self.outflags();
        let mut syn = seqno == self.iss;
        let mut emptying_buffer = false;
        let mut buffered_bytes = if self.infinite_send {
            TCP_MAXSEQ
        } else {
            self.curseq - self.highest_ack + 1
        };
        let win = self.window() * maxseg;
        let mut off = seqno - self.highest_ack;
        if self.highest_ack < 0 {
            if !self.infinite_send {
                buffered_bytes = self.curseq - self.iss;
            }
            off = seqno - self.iss;
        }
        // data_on_syn_ false (the script layer refuses true); pipectrl_ only by SACK recovery
        let mut datalen = if syn {
            0
        } else if self.pipectrl {
            buffered_bytes - off
        } else {
            buffered_bytes.min(win) - off
        };
        datalen = datalen.clamp(0, maxseg);
        // slow_start_restart_: an idle connection restarts from the initial window
        if self.p.slow_start_restart && quiet && datalen > 0 && self.idle_restart() {
            self.slowdown_init();
        }
        if !self.infinite_send && (seqno + datalen > self.curseq || (syn && datalen == 0)) {
            emptying_buffer = true;
            // close_on_empty_ false: no TF_NEEDCLOSE here
            pflags |= th::PSH;
        } else {
            pflags &= !th::FIN;
        }
        if self.infinite_send && syn && datalen == 0 {
            pflags |= th::PSH; // PUSH on a dataless SYN
        }
        let send = (datalen > 0
            && (datalen == maxseg
                || ((quiet || self.f.nodelay) && emptying_buffer)
                || is_retransmit
                || datalen as f64 >= (self.wnd * maxseg as f64) / 2.0))
            || self.need_send()
            || self.flags & (TF_ACKNOW | TF_NEEDCLOSE) != 0
            || pflags & (th::SYN | th::FIN) != 0;
        if !send {
            return 0;
        }
        syn = pflags & th::SYN != 0;
        let fin = pflags & th::FIN != 0;
        // the CWR bit marks new data sent after a window reduction (traces only, no ECN)
        if datalen > 0 && self.cong_action && !is_retransmit {
            pflags |= th::CWR;
        }
        let ack = self.rcv_nxt;
        self.sendpacket(seqno, ack, pflags, datalen, reason, cx);
        self.flags &= !(TF_ACKNOW | TF_DELACK);
        let reliable = datalen + syn as i64 + fin as i64;
        if self.cong_action && reliable > 0 && !is_retransmit {
            self.cong_action = false;
        }
        let highest = seqno + reliable;
        if highest > self.maxseq {
            self.maxseq = highest;
            if !self.rtt_active {
                self.rtt_active = true;
                self.rtt_seq = seqno;
                self.rtt_ts = self.now;
            }
        }
        if self.rtx_at.is_none() && reliable > 0 {
            self.set_rtx_timer();
        }
        reliable
    }

    /// tcp-full.cc `sendpacket`: the header (`hlen` = tcpip_base_hdr_size_ plus the options
    /// of `build_options`: SackFullTcpAgent's SACK blocks),
    /// the size (data + header), the counters, `last_ack_sent_`. The listener's packets are
    /// ns-2 type `ack` (`listen`: `type_ = PT_ACK`), the opener's `tcp`.
    pub(crate) fn sendpacket(
        &mut self,
        seqno: i64,
        ackno: i64,
        pflags: u8,
        datalen: i64,
        reason: u8,
        cx: &mut EndpointCtx,
    ) {
        let mut tcp = TcpHeader {
            seq: seqno as u64,
            // -1 before a SYN arrived: traces fold it to 32 bits and print it signed
            ack: ackno as u64,
            flags: pflags,
            ..TcpHeader::default()
        };
        let hlen = self.p.header + self.sack_build_options(&mut tcp);
        if datalen <= 0 {
            self.nackpack += 1;
        } else {
            self.ndatapack += 1;
            self.last_send_time = self.now_s;
        }
        if reason == REASON_TIMEOUT || reason == REASON_DUPACK {
            self.nrexmitpack += 1;
        }
        self.last_ack_sent = ackno;
        let size = datalen.max(0) as u32 + hlen;
        cx.send(Packet {
            size,
            payload: datalen.max(0) as u32,
            kind: if self.active {
                PacketKind::TcpData
            } else {
                PacketKind::TcpAck
            },
            tcp,
            ..Packet::default()
        });
    }

    /// tcp-full.cc `idle_restart`: idle (since the last data sent) for longer than the
    /// current RTO, counted in whole ticks of the agent's clock.
    fn idle_restart(&self) -> bool {
        if self.last_send_time < 0.0 {
            return false;
        }
        let tick = self.p.clock_granularity.as_secs_f64();
        let mut tao = self.now_s - self.last_send_time;
        let boot = self.p.clock_phase.as_secs_f64();
        let tickoff = (self.last_send_time + boot) % tick;
        tao = (((tao + tickoff) / tick) as i64) as f64 * tick;
        tao > self.rtt.ns2_rtxcur().unwrap_or(0.0)
    }
}
