// bufferlab bench peer: an ns-3 leaf-spine fabric with ns-3's own equal-cost multipath, built
// against the ns-3 libraries of the PyPI package `ns3` (bench/peers/build_ns3.sh). Prints one
// JSON object on stdout. Used by bench/ecmp_ns3.py (issue #38, docs/validation.md).
//
//   h{l}_{i} --host link-- leaf{l} ==fabric{l}_{s}== spine{s}      (every leaf to every spine)
//
// Routing: Ipv4GlobalRoutingHelper::PopulateRoutingTables, with
// ns3::Ipv4GlobalRouting::RandomEcmpRouting set by --randomEcmp: false, every node takes the
// first of its equal-cost routes; true, ns-3.44's Ipv4GlobalRouting::LookupGlobal draws one
// uniformly for every packet it routes (m_rand->GetInteger(0, allRoutes.size() - 1)), so a
// flow's packets spread over every spine and arrive out of order.
//
// Every port of every node (hosts, leaves, spines; both directions of every link) has the same
// queue disc over a 1-packet device queue (the PPP device's DropTailQueue): either RED as
// DCTCP's step marking at K (MinTh = MaxTh = K, QW = 1, UseEcn, no hard drop; TCP DCTCP with
// ECN) or a DropTail FIFO (FifoQueueDisc), both of --qlimit packets.
//
// Flows (--flows): "sl,si,dl,di,bytes,start;..." from host h{sl}_{si} to h{dl}_{di}, a BulkSend
// of `bytes` bytes (0: unlimited) starting at `start` seconds, one sink per flow. A finite
// flow's completion time is taken as bufferlab takes it (docs/models/fct.md): from its start to
// the sender's receipt of the ACK of its last byte (the socket's HighestRxAck reaching
// bytes + 1, the SYN taking sequence number 0).
//
// Output: per flow, bytes received, goodput, completion time, the sender's data segments,
// retransmissions (a segment sent below the highest sequence sent) and RTO expiries, and its
// cwnd, bytes in flight and congestion state at the end (`end`: where a flow stalled); per fabric
// link, packets and IP bytes sent up (leaf to spine) and down (spine to leaf) (the device's
// PhyTxBegin, less the 2-byte PPP header); drops and ECN marks summed over every queue disc, and
// the packets lost elsewhere (the devices' MacTxDrop, Ipv4L3Protocol's Drop) as `other_drops`.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct FlowSpec
{
    uint32_t sl, si, dl, di;
    uint64_t bytes;
    double start;
};

struct FlowState
{
    uint64_t segments = 0;
    uint64_t retransmits = 0;
    uint64_t timeouts = 0;
    SequenceNumber32 highTx{0};
    bool anyTx = false;
    double doneAt = -1; // when the ACK of the last byte came back (finite flows)
    uint32_t cwnd = 0;     // at the end: congestion window, bytes in flight and state
    uint32_t inFlight = 0;
    int state = 0;
};

struct LinkCount
{
    uint64_t packets = 0;
    uint64_t bytes = 0;
};

std::vector<FlowSpec> g_spec;
std::vector<FlowState> g_flow;
std::vector<LinkCount> g_up;   // [leaf * spines + spine]
std::vector<LinkCount> g_down; // [leaf * spines + spine]

std::vector<std::string>
Split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string t;
    while (std::getline(ss, t, sep))
    {
        if (!t.empty())
        {
            out.push_back(t);
        }
    }
    return out;
}

void
OnTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    FlowState& f = g_flow[i];
    f.segments++;
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (f.anyTx && h.GetSequenceNumber() < f.highTx)
    {
        f.retransmits++;
    }
    if (!f.anyTx || end > f.highTx)
    {
        f.highTx = end;
        f.anyTx = true;
    }
}

// The RTO doubles only in TcpSocketBase::ReTxTimeout (as bench/peers/ns3_dumbbell.cc counts).
void
OnRto(uint32_t i, Time old, Time now)
{
    if (now == old + old || (now == Seconds(60) && old >= Seconds(30) && old < now))
    {
        g_flow[i].timeouts++;
    }
}

void
OnAck(uint32_t i, SequenceNumber32, SequenceNumber32 now)
{
    FlowState& f = g_flow[i];
    if (g_spec[i].bytes > 0 && f.doneAt < 0 && now.GetValue() >= g_spec[i].bytes + 1)
    {
        f.doneAt = Simulator::Now().GetSeconds();
    }
}

// Packets lost outside the queue discs: device queue overflows and the IP layer's drops.
uint64_t g_otherDrops = 0;

void
OnIpDrop(const Ipv4Header&, Ptr<const Packet>, Ipv4L3Protocol::DropReason, Ptr<Ipv4>, uint32_t)
{
    g_otherDrops++;
}

void
OnMacDrop(Ptr<const Packet>)
{
    g_otherDrops++;
}

void
OnPhyTx(LinkCount* c, Ptr<const Packet> p)
{
    c->packets++;
    c->bytes += p->GetSize() - 2; // the PPP header
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t now)
{
    g_flow[i].cwnd = now;
}

void
OnInFlight(uint32_t i, uint32_t, uint32_t now)
{
    g_flow[i].inFlight = now;
}

void
OnState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    g_flow[i].state = now;
}

// The BulkSend socket exists once its application has started.
void
Hook(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, i));
    s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, i));
    s->TraceConnectWithoutContext("HighestRxAck", MakeBoundCallback(&OnAck, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnInFlight, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnState, i));
}

} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = std::chrono::steady_clock::now();
    uint32_t leaves = 2;
    uint32_t spines = 4;
    uint32_t hosts = 8;
    std::string hostRate = "10Gbps";
    std::string fabricRate = "10Gbps";
    std::string delay = "1us";
    std::string tcp = "TcpDctcp";
    bool red = true;
    uint32_t k = 65;
    uint32_t qlimit = 400;
    bool randomEcmp = true;
    uint32_t segSize = 1448;
    std::string flows = "0,0,1,0,0,0";
    double simTime = 0.1;
    uint32_t seed = 1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.AddValue("hosts", "hosts per leaf", hosts);
    cmd.AddValue("hostRate", "host link rate", hostRate);
    cmd.AddValue("fabricRate", "leaf-spine link rate", fabricRate);
    cmd.AddValue("delay", "every link's delay", delay);
    cmd.AddValue("tcp", "TCP type (TcpDctcp, TcpNewReno, TcpLinuxReno, ...)", tcp);
    cmd.AddValue("red", "1: RED step marking at K with ECN (DCTCP); 0: FIFO DropTail", red);
    cmd.AddValue("k", "marking threshold K in packets (RED MinTh = MaxTh)", k);
    cmd.AddValue("qlimit", "every queue disc's limit, packets", qlimit);
    cmd.AddValue("randomEcmp", "Ipv4GlobalRouting::RandomEcmpRouting", randomEcmp);
    cmd.AddValue("segSize", "TcpSocket::SegmentSize", segSize);
    cmd.AddValue("flows", "sl,si,dl,di,bytes,start;... (bytes 0: unlimited)", flows);
    cmd.AddValue("simTime", "seconds", simTime);
    cmd.AddValue("seed", "RngRun", seed);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(randomEcmp));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::" + tcp));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segSize));
    if (red)
    {
        Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    }

    for (const std::string& f : Split(flows, ';'))
    {
        std::vector<std::string> v = Split(f, ',');
        if (v.size() != 6)
        {
            std::fprintf(stderr, "--flows: \"%s\" is not sl,si,dl,di,bytes,start\n", f.c_str());
            return 2;
        }
        FlowSpec s{uint32_t(std::stoul(v[0])), uint32_t(std::stoul(v[1])),
                   uint32_t(std::stoul(v[2])), uint32_t(std::stoul(v[3])),
                   std::stoull(v[4]),          std::stod(v[5])};
        if (s.sl >= leaves || s.dl >= leaves || s.si >= hosts || s.di >= hosts)
        {
            std::fprintf(stderr, "--flows: \"%s\" names a host beyond the fabric\n", f.c_str());
            return 2;
        }
        g_spec.push_back(s);
    }
    g_flow.assign(g_spec.size(), FlowState{});
    g_up.assign(leaves * spines, LinkCount{});
    g_down.assign(leaves * spines, LinkCount{});

    NodeContainer leafN;
    leafN.Create(leaves);
    NodeContainer spineN;
    spineN.Create(spines);
    NodeContainer hostN;
    hostN.Create(leaves * hosts);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper hostLink;
    hostLink.SetDeviceAttribute("DataRate", StringValue(hostRate));
    hostLink.SetChannelAttribute("Delay", StringValue(delay));
    hostLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointHelper fabricLink;
    fabricLink.SetDeviceAttribute("DataRate", StringValue(fabricRate));
    fabricLink.SetChannelAttribute("Delay", StringValue(delay));
    fabricLink.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));

    // Every port's queue disc, installed before the addresses (so ns-3's default is not).
    TrafficControlHelper tch;
    QueueSize limit(QueueSizeUnit::PACKETS, qlimit);
    if (red)
    {
        tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", QueueSizeValue(limit), "MinTh",
                             DoubleValue(k), "MaxTh", DoubleValue(k), "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false), "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false), "MeanPktSize",
                             UintegerValue(1500));
    }
    else
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(limit));
    }
    QueueDiscContainer qdiscs;
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddr(leaves * hosts);
    // Nodes and links in the order bufferlab's builder makes them (leaves, spines, hosts; the
    // uplinks in leaf and spine order, then the host links, a host link from the host).
    for (uint32_t l = 0; l < leaves; l++)
    {
        for (uint32_t s = 0; s < spines; s++)
        {
            NetDeviceContainer d = fabricLink.Install(leafN.Get(l), spineN.Get(s));
            qdiscs.Add(tch.Install(d));
            addr.Assign(d);
            addr.NewNetwork();
            d.Get(0)->TraceConnectWithoutContext(
                "PhyTxBegin", MakeBoundCallback(&OnPhyTx, &g_up[l * spines + s]));
            d.Get(1)->TraceConnectWithoutContext(
                "PhyTxBegin", MakeBoundCallback(&OnPhyTx, &g_down[l * spines + s]));
        }
    }
    for (uint32_t l = 0; l < leaves; l++)
    {
        for (uint32_t i = 0; i < hosts; i++)
        {
            NetDeviceContainer d = hostLink.Install(hostN.Get(l * hosts + i), leafN.Get(l));
            qdiscs.Add(tch.Install(d));
            hostAddr[l * hosts + i] = addr.Assign(d).GetAddress(0);
            addr.NewNetwork();
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    Config::ConnectWithoutContext("/NodeList/*/$ns3::Ipv4L3Protocol/Drop", MakeCallback(&OnIpDrop));
    Config::ConnectWithoutContext("/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/MacTxDrop",
                                  MakeCallback(&OnMacDrop));

    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < g_spec.size(); i++)
    {
        const FlowSpec& f = g_spec[i];
        uint16_t port = 5000 + i;
        PacketSinkHelper sh("ns3::TcpSocketFactory",
                            InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sh.Install(hostN.Get(f.dl * hosts + f.di));
        sa.Start(Seconds(0));
        sinks.push_back(DynamicCast<PacketSink>(sa.Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(hostAddr[f.dl * hosts + f.di], port));
        bulk.SetAttribute("SendSize", UintegerValue(segSize));
        bulk.SetAttribute("MaxBytes", UintegerValue(f.bytes));
        ApplicationContainer ca = bulk.Install(hostN.Get(f.sl * hosts + f.si));
        ca.Start(Seconds(f.start));
        ca.Stop(Seconds(simTime));
        // after the application's own start event at the same instant
        Simulator::Schedule(Seconds(f.start) + NanoSeconds(1), &Hook, i,
                            DynamicCast<BulkSendApplication>(ca.Get(0)));
    }

    auto t1 = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    auto t2 = std::chrono::steady_clock::now();

    std::ostringstream o;
    o.precision(10);
    o << "{\"flows\":[";
    for (uint32_t i = 0; i < g_spec.size(); i++)
    {
        const FlowState& f = g_flow[i];
        uint64_t rx = sinks[i]->GetTotalRx();
        o << (i ? "," : "") << "{\"bytes\":" << g_spec[i].bytes << ",\"rx_bytes\":" << rx
          << ",\"goodput_bps\":" << rx * 8.0 / (simTime - g_spec[i].start) << ",\"fct_s\":";
        if (f.doneAt >= 0)
        {
            o << f.doneAt - g_spec[i].start;
        }
        else
        {
            o << "null";
        }
        o << ",\"segments\":" << f.segments << ",\"retransmits\":" << f.retransmits
          << ",\"timeouts\":" << f.timeouts << ",\"end\":{\"cwnd\":" << f.cwnd
          << ",\"in_flight\":" << f.inFlight << ",\"state\":\""
          << TcpSocketState::TcpCongStateName[f.state] << "\"}}";
    }
    o << "],\"fabric\":[";
    for (uint32_t l = 0; l < leaves; l++)
    {
        for (uint32_t s = 0; s < spines; s++)
        {
            const LinkCount& u = g_up[l * spines + s];
            const LinkCount& d = g_down[l * spines + s];
            o << (l + s ? "," : "") << "{\"link\":\"fabric" << l << "_" << s
              << "\",\"up_packets\":" << u.packets << ",\"up_bytes\":" << u.bytes
              << ",\"down_packets\":" << d.packets << ",\"down_bytes\":" << d.bytes << "}";
        }
    }
    uint64_t drops = 0;
    uint64_t marks = 0;
    for (uint32_t i = 0; i < qdiscs.GetN(); i++)
    {
        QueueDisc::Stats st = qdiscs.Get(i)->GetStats();
        drops += st.nTotalDroppedPackets;
        marks += st.nTotalMarkedPackets;
    }
    o << "],\"drops\":" << drops << ",\"other_drops\":" << g_otherDrops
      << ",\"marks\":" << marks
      << ",\"events\":" << Simulator::GetEventCount()
      << ",\"sim_wall_s\":" << std::chrono::duration<double>(t2 - t1).count()
      << ",\"setup_wall_s\":" << std::chrono::duration<double>(t1 - t0).count() << "}";
    std::printf("%s\n", o.str().c_str());
    Simulator::Destroy();
    return 0;
}
