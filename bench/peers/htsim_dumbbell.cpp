// -*- c-basic-offset: 4 -*-
// The bench's dumbbell (bench/scenarios/d_N.toml: N one-way TCP flows, each through its own
// access links into one shared bottleneck) written for htsim, the packet simulator of the
// datacenter-transport literature (NDP, EQDS), to compare speed per packet-hop with bufferlab
// (issue #40; docs/performance.md, "Beside htsim"). This file is bufferlab's own; htsim is not
// part of the repository: bench/peers/build_htsim.sh compiles this file against a checkout of
// htsim's public source (Broadcom/csg-htsim, sim/) that the user points it to.
//
// Same network as bufferlab's dumbbell builder: per flow a source access queue, the shared
// bottleneck queue, a sink access queue (data), and the same three in reverse (ACKs), each a
// FIFO drop-tail queue feeding a pipe of the link's delay. TCP is htsim's TcpSrc / TcpSink
// (NewReno-like, IW 10, its own defaults), so results are not compared, only cost: a
// packet-hop is one packet served by one queue (counted in CountingQueue::completeService).
//
//   htsim_dumbbell -flows 100 -access_mbps 1000 -access_delay_us 1000 -access_pkts 100
//                  -bneck_mbps 100 -bneck_delay_us 10000 -bneck_pkts 202 -duration_s 20
//
// prints one JSON line: flows, packet_hops, goodput_bps, drops.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "clock.h"
#include "eventlist.h"
#include "network.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"

static uint64_t g_hops = 0;

// A FIFO queue that counts the packets it serves (one per packet-hop).
class CountingQueue : public Queue {
  public:
    CountingQueue(linkspeed_bps rate, mem_b size, EventList& ev) : Queue(rate, size, ev, nullptr) {}
    void completeService() override {
        g_hops++;
        Queue::completeService();
    }
};

int main(int argc, char** argv) {
    int flows = 100;
    double access_mbps = 1000, bneck_mbps = 100, duration_s = 20;
    double access_delay_us = 1000, bneck_delay_us = 10000;
    int access_pkts = 100, bneck_pkts = 202, pkt_bytes = 1500;
    unsigned seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string k = argv[i];
        double v = atof(argv[i + 1]);
        if (k == "-flows") flows = (int)v;
        else if (k == "-access_mbps") access_mbps = v;
        else if (k == "-access_delay_us") access_delay_us = v;
        else if (k == "-access_pkts") access_pkts = (int)v;
        else if (k == "-bneck_mbps") bneck_mbps = v;
        else if (k == "-bneck_delay_us") bneck_delay_us = v;
        else if (k == "-bneck_pkts") bneck_pkts = (int)v;
        else if (k == "-pkt_bytes") pkt_bytes = (int)v;
        else if (k == "-duration_s") duration_s = v;
        else if (k == "-seed") seed = (unsigned)v;
        else {
            fprintf(stderr, "htsim_dumbbell: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    srand(seed);
    EventList ev;
    ev.setEndtime(timeFromSec(duration_s));
    Packet::set_packet_size(pkt_bytes);
    linkspeed_bps access = speedFromMbps(access_mbps), bneck = speedFromMbps(bneck_mbps);

    // the two shared bottleneck directions
    CountingQueue bneck_fwd(bneck, memFromPkt(bneck_pkts), ev), bneck_rev(bneck, memFromPkt(bneck_pkts), ev);
    Pipe bneck_fwd_pipe(timeFromUs(bneck_delay_us), ev), bneck_rev_pipe(timeFromUs(bneck_delay_us), ev);
    TcpRtxTimerScanner scanner(timeFromMs(10), ev);
    std::vector<TcpSink*> sinks;
    for (int i = 0; i < flows; i++) {
        auto* src = new TcpSrc(nullptr, nullptr, ev);
        auto* snk = new TcpSink();
        scanner.registerTcp(*src);
        auto q = [&](linkspeed_bps r, int p) { return new CountingQueue(r, memFromPkt(p), ev); };
        auto pipe = [&](double us) { return new Pipe(timeFromUs(us), ev); };
        auto* out = new route_t();
        out->push_back(q(access, access_pkts));
        out->push_back(pipe(access_delay_us));
        out->push_back(&bneck_fwd);
        out->push_back(&bneck_fwd_pipe);
        out->push_back(q(access, access_pkts));
        out->push_back(pipe(access_delay_us));
        out->push_back(snk);
        auto* back = new route_t();
        back->push_back(q(access, access_pkts));
        back->push_back(pipe(access_delay_us));
        back->push_back(&bneck_rev);
        back->push_back(&bneck_rev_pipe);
        back->push_back(q(access, access_pkts));
        back->push_back(pipe(access_delay_us));
        back->push_back(src);
        src->connect(*out, *back, *snk, (simtime_picosec)(drand() * timeFromMs(1)));
        sinks.push_back(snk);
    }
    while (ev.doNextEvent()) {
    }
    uint64_t bytes = 0;
    for (auto* s : sinks) bytes += s->_cumulative_ack;
    // stdout carries htsim's own RTO log lines; the result goes to stderr
    fprintf(stderr, "{\"flows\": %d, \"packet_hops\": %llu, \"goodput_bps\": %.0f, \"drops\": %d}\n", flows,
           (unsigned long long)g_hops, bytes * 8.0 / duration_s, bneck_fwd.num_drops());
    return 0;
}
