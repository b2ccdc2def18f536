//! The Linux flavour (the `linux` preset): the RFC flavour ([`super::rfc`]), with the loss
//! recovery that Linux runs where the RFCs leave it as an option. Each rule that differs from
//! the RFC flavour cites the Linux source it follows; every other value is `rfc::RULES`'s.
//!
//! * PRR (RFC 6937), Linux's fast-recovery window since 3.2 (commit "Proportional Rate
//!   Reduction for TCP", N. Dukkipati, 2011): `net/ipv4/tcp_input.c` `tcp_init_cwnd_reduction`,
//!   `tcp_cwnd_reduction` and `tcp_end_cwnd_reduction`, modelled in `tcp/sender/prr_linux.rs`.
//! * RACK-TLP (RFC 8985), Linux's loss detection since 4.18 (RACK alone since 4.10, TLP since
//!   3.10): `net/ipv4/tcp_recovery.c` and `tcp_output.c`, modelled in `tcp/rack.rs` and
//!   `tcp/sender/rack_tlp.rs`.
//!
//! * The receiver's ACK policy: quick-ACK mode, the adaptive delayed-ACK timeout (`ato`) and
//!   SACK compression (`tcp_input.c`, `tcp_output.c`, `tcp_timer.c`), modelled in
//!   `tcp/linux_ack.rs`.
//!
//! * Nagle with the FIN exempt and Minshall's variant (`tcp_output.c` `tcp_nagle_test`,
//!   `tcp_minshall_check`), with `nagle` on in the `linux` preset (TCP_NODELAY off).
//!
//! Keeping these rules in a flavour of their own leaves the RFC flavour (the `ns2` and `ns3`
//! presets with their rules turned off) byte-identical.

use super::{PrrVariant, Rules};

pub const RULES: Rules = Rules {
    // tcp_input.c tcp_cong_control -> tcp_cwnd_reduction in CA_Recovery (PRR, RFC 6937),
    // with `prr` on in the `linux` preset (tcp/config.rs).
    prr: Some(PrrVariant::Linux),
    // tcp_recovery.c (RACK, sysctl tcp_recovery 1, default since 4.18) and tcp_output.c
    // tcp_schedule_loss_probe / tcp_send_loss_probe (TLP, sysctl tcp_early_retrans 3), with
    // `rack_tlp` on in the `linux` preset (tcp/config.rs).
    rack_tlp: true,
    // tcp_input.c tcp_enter_loss -> tcp_timeout_mark_lost: SACKed data is not sent again after
    // a timeout (with `rack_tlp`; tcp/sender/timeout.rs).
    timeout_keeps_sack: true,
    // tcp_input.c tcp_event_data_recv / __tcp_ack_snd_check, tcp_output.c
    // tcp_send_delayed_ack, tcp_timer.c tcp_delack_timer_handler (tcp/linux_ack.rs).
    linux_ack_policy: true,
    // tcp_input.c tcp_dsack_set / tcp_check_dsack / tcp_try_undo_* (tcp/sender/dsack_undo.rs),
    // with `dsack` on in the `linux` preset (tcp/config.rs).
    dsack: true,
    // tcp_output.c tcp_nagle_test: the FIN's segment is never held, and tcp_minshall_check
    // holds a small segment only while an earlier small one is unacknowledged.
    nagle_minshall: true,
    // TCP_CONG_NEEDS_ECN (tcp_dctcp.c, tcp_prague.c): INET_ECN_xmit on the SYN, the SYN-ACK
    // (tcp_ecn_send_syn, tcp_ecn_make_synack) and every later packet (tcp_ecn_send).
    ect_on_every_packet: true,
    ..super::rfc::RULES
};
